import NIOCore

/// A feature that rides on a task's connection before the task has it: it puts its handlers in
/// front of the task's own when the connection is up, and hears when the task completes.
///
/// This is the seam through which modules above the core (data tasks, in StreamTaskHTTP) plug
/// into a task without a stored field of their own on it. Its methods run on the task's event
/// loop.
package protocol StreamTaskAttachment: AnyObject, Sendable {
    /// The connection to the host is up and the task's handler is about to join the pipeline:
    /// add what goes in front of it. A throw fails the task's connect with that error.
    func install(on channel: any Channel, driver: StreamTaskDriver) throws
    /// The task completed (`nil` after an orderly close); the attachment is let go.
    func carrierCompleted(_ error: StreamTaskError?)
}
