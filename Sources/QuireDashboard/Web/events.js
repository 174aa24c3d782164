// The watcher's publishes, pushed by the service (`GET /api/events`, server-sent events): one
// EventSource for the whole dashboard, handed to whoever listens.
const listeners = new Set();
let source = null;

export function onPublish(listener) {
    if (!source) {
        source = new EventSource('/api/events');
        source.addEventListener('publish', (event) => {
            const arrived = performance.now();
            let data;
            try {
                data = JSON.parse(event.data);
            } catch {
                return;
            }
            for (const each of [...listeners]) each(data, arrived);
        });
    }
    listeners.add(listener);
    return () => listeners.delete(listener);
}
