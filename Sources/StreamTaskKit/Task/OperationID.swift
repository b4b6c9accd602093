/// Identifies one operation queued on a task.
struct OperationID: Hashable, Sendable, CustomStringConvertible {
    var rawValue: UInt64
    var description: String { "op\(rawValue)" }
}
