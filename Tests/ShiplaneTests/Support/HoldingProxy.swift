import Foundation

/// A loopback TCP proxy in front of a real server (Python's standard library, in a child process)
/// that forwards every byte both ways, except that once a client sends a request whose first line
/// is `METHOD …PATH_PART…`, it forwards that request and holds the server's answer on that
/// connection (and writes `marker`): the server has done the request, the client never hears.
/// It ends by itself after 120 seconds; `stop()` ends it sooner.
final class HoldingProxy: @unchecked Sendable {
    // Set once in init, read afterwards.
    let marker: String
    private let listener: PythonListener

    var port: Int { listener.port }

    var host: String { "127.0.0.1:\(port)" }
    /// True once the matching request went through and its answer is held.
    var holding: Bool { FileManager.default.fileExists(atPath: marker) }

    init(to targetPort: Int, holding method: String, pathContaining part: String) throws {
        marker = NSTemporaryDirectory() + "shiplane-proxy-\(UUID().uuidString).held"
        let script = #"""
        import os, socket, sys, threading, time
        target, method, part, marker = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3].encode(), sys.argv[4]
        threading.Timer(120, lambda: os._exit(0)).start()
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        print(server.getsockname()[1], flush=True)
        done = threading.Lock()
        held = [False]
        def pipe(source, sink, upstream, state):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    if upstream and not state["hold"]:
                        line = data.split(b"\r\n", 1)[0]
                        if line.startswith(method + b" ") and part in line:
                            with done:
                                if not held[0]:
                                    held[0] = True
                                    state["hold"] = True
                    if not upstream and state["hold"]:
                        open(marker, "w").close()
                        while True:
                            time.sleep(1)
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                for s in (source, sink):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
        while True:
            client, _ = server.accept()
            upstream = socket.create_connection(("127.0.0.1", target))
            state = {"hold": False}
            threading.Thread(target=pipe, args=(client, upstream, True, state), daemon=True).start()
            threading.Thread(target=pipe, args=(upstream, client, False, state), daemon=True).start()
        """#
        listener = try PythonListener(script: script, arguments: [String(targetPort), method, part, marker], what: "the holding proxy")
    }

    /// Ends the proxy at once (SIGKILL: its held connection closes, so the server behind it is not
    /// left waiting on it when it stops).
    func stop() {
        listener.stop()
        try? FileManager.default.removeItem(atPath: marker)
    }
}
