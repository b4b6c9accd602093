@testable import ChatProtocol

/// The code of the ``IRCMessageError`` that `body` throws; `nil` when it throws none.
func errorCode(_ body: () throws -> Any) -> IRCMessageError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as IRCMessageError {
        return error.code
    } catch {
        return nil
    }
}
