// Child processes and blocking work, shared with the chat tests.
@_exported import StreamTaskTestSupport
