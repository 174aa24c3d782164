#include <inotifytools/inotifytools.h>
#include <inotifytools/inotify.h>
#include <stddef.h>

// Swift cannot see `inotify_event.name` (a flexible array member).
static inline const char *quire_inotify_event_name(const struct inotify_event *event) {
    return event->len > 0 ? event->name : "";
}
