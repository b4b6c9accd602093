// The library's one import: the core (stream tasks, sessions, listeners, TLS, proxies, routes)
// and the HTTP data tasks that can become stream tasks. Each is also a module of its own, for a
// program that wants the core without HTTP.
@_exported import StreamTaskCore
@_exported import StreamTaskHTTP
