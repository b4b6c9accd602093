import Foundation

/// Writes `message` and a newline to standard error.
public func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Prints `line` to standard output and flushes it at once, so that a script reading a pipe
/// sees each line as it happens, in order with what goes to standard error.
public func printLine(_ line: String) {
    print(line)
    fflush(nil)  // every stream; naming the global `stdout` is not concurrency-safe in Swift 6
}
