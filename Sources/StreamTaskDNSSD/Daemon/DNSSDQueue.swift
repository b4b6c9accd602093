import Dispatch
import Foundation

/// The one serial queue that every call into the DNS-SD library, and every reply from it, runs
/// on: the module's daemon state needs no lock, and no operation has a thread of its own.
enum DNSSDQueue {
    static let queue = DispatchQueue(label: "StreamTaskDNSSD")

    /// Runs `body` on the queue, once the C library is ready for its first call.
    static func async(_ body: @escaping @Sendable () -> Void) {
        queue.async {
            _ = compatibilityLayerSilenced
            body()
        }
    }

    /// Avahi's compatibility layer prints a warning to standard error on its first call unless
    /// `AVAHI_COMPAT_NOWARN` is set; a library must not print, so it is set before that call.
    /// (On Darwin the system's library prints nothing and the variable means nothing.)
    private static let compatibilityLayerSilenced: Bool = {
        #if os(Linux)
        setenv("AVAHI_COMPAT_NOWARN", "1", 1)
        #endif
        return true
    }()

    /// Starts a request on the queue and waits for its result. If the waiting Swift task is
    /// cancelled, the request is told so and ends with ``DNSSDError/Code/cancelled``.
    static func perform<Request: DaemonRequest>(_ request: Request) async throws -> Request.Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Request.Value, any Error>) in
                async { request.start(continuation) }
            }
        } onCancel: {
            async { request.cancel() }
        }
    }
}

/// A request to the daemon with one result, carried out on ``DNSSDQueue``.
protocol DaemonRequest: AnyObject, Sendable {
    associatedtype Value: Sendable
    /// Starts the request; it resumes `continuation` exactly once. Called on the queue.
    func start(_ continuation: CheckedContinuation<Value, any Error>)
    /// The waiting Swift task was cancelled: end the request, failing it unless it has finished.
    /// Called on the queue, possibly before ``start(_:)``.
    func cancel()
}
