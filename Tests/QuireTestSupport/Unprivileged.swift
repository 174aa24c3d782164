import CFilesystemIdentity
import Foundation

/// Runs a step of a test with the file access rights of an unprivileged user, so a permission
/// check means the same under root (CI) as anywhere else. Root's thread takes the filesystem user
/// and group of `nobody` (`setfsuid`, which also drops the capabilities that let root read
/// anything); other users already are unprivileged. The identity is a thread's own, so the step
/// runs on a thread of its own and no other test is touched.
public enum Unprivileged {
    public static let nobody: UInt32 = 65534

    /// Whether the step runs as `nobody` (root) or as the current user (anyone else).
    public static var dropsRoot: Bool { getuid() == 0 }

    /// The step's result, and the filesystem user it ran as (to check the drop took place).
    public static func run<Result: Sendable>(_ step: @escaping @Sendable () -> Result) -> (result: Result, fileUser: UInt32) {
        let done = DispatchSemaphore(value: 0)
        let box = Box<(Result, UInt32)>()
        let thread = Thread {
            let dropped = dropsRoot
            if dropped {
                _ = setfsgid(nobody)
                _ = setfsuid(nobody)
            }
            let fileUser = UInt32(bitPattern: setfsuid(UInt32.max))  // an invalid id changes nothing, returns the current one
            box.value = (step(), fileUser)
            if dropped {
                _ = setfsuid(0)
                _ = setfsgid(0)
            }
            done.signal()
        }
        thread.start()
        done.wait()
        return box.value!
    }

    private final class Box<Value>: @unchecked Sendable {
        var value: Value?  // written by the step's thread before the semaphore is signalled
    }
}
