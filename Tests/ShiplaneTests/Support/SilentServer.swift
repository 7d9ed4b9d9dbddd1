import Foundation

/// A loopback TCP server that accepts connections, reads what is sent, and never answers: a
/// server that hangs. Counts the connections and the requests (request lines) it saw.
final class SilentServer: @unchecked Sendable {
    private let listener: Int32
    let port: UInt16
    private let lock = NSLock()
    private var connections: [Int32] = []
    private var requestLines: [String] = []
    private var stopped = false

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestFailure("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw TestFailure("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }
    var requests: [String] { lock.withLock { requestLines } }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let keep = lock.withLock { () -> Bool in
                if stopped { return false }
                connections.append(connection)
                return true
            }
            guard keep else { close(connection); return }
            Thread { [self] in read(connection) }.start()
        }
    }

    private func read(_ connection: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var seen = ""
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            seen += String(decoding: buffer[0..<count], as: UTF8.self)
            while let end = seen.range(of: "\r\n\r\n") {
                let head = String(seen[..<end.lowerBound])
                lock.withLock { requestLines.append(head.components(separatedBy: "\r\n").first ?? "") }
                seen = String(seen[end.upperBound...])
            }
        }
    }

    func stop() {
        let open = lock.withLock { () -> [Int32] in
            stopped = true
            return connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in open { shutdown(connection, Int32(SHUT_RDWR)); close(connection) }
    }
}

/// A loopback port nothing listens on (bound, then closed at once): connections are refused.
func closedLoopbackPort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw TestFailure("socket failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
            guard bind(descriptor, pointer, length) == 0 else { return -1 }
            return getsockname(descriptor, pointer, &length)
        }
    }
    guard bound == 0 else { throw TestFailure("bind failed") }
    return UInt16(bigEndian: address.sin_port)
}
