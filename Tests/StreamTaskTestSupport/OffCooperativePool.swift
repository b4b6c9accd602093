import Foundation

/// Runs blocking work (pipes, child processes) on a thread of its own: not on the small
/// cooperative pool the other tests need, nor on Dispatch's global queue, which on Linux runs
/// about one thread per core and adds more only slowly when they block.
public func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
