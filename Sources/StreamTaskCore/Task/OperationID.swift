/// Identifies one operation queued on a task.
package struct OperationID: Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt64
    package var description: String { "op\(rawValue)" }
}
