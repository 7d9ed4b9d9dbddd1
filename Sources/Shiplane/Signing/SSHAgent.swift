import Foundation

/// A client of ssh-agent's protocol (draft-miller-ssh-agent) over its Unix socket
/// (`SSH_AUTH_SOCK`): lists the identities and asks for signatures. The private keys stay in
/// the agent.
struct SSHAgent {
    /// The socket's path.
    let socket: String

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let noSignal: Int32 = 0
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #endif

    private static let requestIdentities: UInt8 = 11, identitiesAnswer: UInt8 = 12
    private static let signRequest: UInt8 = 13, signResponse: UInt8 = 14
    /// Asks for `rsa-sha2-512` signatures from RSA keys (never SHA-1).
    private static let rsaSHA512: UInt32 = 4
    /// Asks for `rsa-sha2-256` signatures from RSA keys (DSSE's `rsa-pkcs1v15-sha256`).
    private static let rsaSHA256: UInt32 = 2

    /// The agent's identities (public keys and their comments).
    /// - Throws: `SigningError` when the agent cannot be reached or answers something else.
    func identities() throws -> [(key: SSHPublicKey, comment: String)] {
        var reader = try exchange([Self.requestIdentities], expecting: Self.identitiesAnswer)
        let count = try reader.uint32()
        var found: [(key: SSHPublicKey, comment: String)] = []
        for _ in 0..<count {
            let blob = try reader.string()
            let comment = try reader.text()
            if let key = try? SSHPublicKey(blob: blob) { found.append((key, comment)) }
        }
        return found
    }

    /// The agent's signature blob of `data` with `key`.
    /// - Throws: `SigningError` when the agent refuses (it does not hold the key, or the user declined).
    func sign(_ data: [UInt8], with key: SSHPublicKey, rsaSHA256: Bool = false) throws -> [UInt8] {
        var request = SSHWireWriter()
        request.byte(Self.signRequest)
        request.string(key.blob)
        request.string(data)
        request.uint32(key.type == "ssh-rsa" ? (rsaSHA256 ? Self.rsaSHA256 : Self.rsaSHA512) : 0)
        var reader = try exchange(request.bytes, expecting: Self.signResponse, refusal: "ssh-agent refused to sign with \(key.fingerprint)")
        return try reader.string()
    }

    /// Sends one message and reads the answer's body after its type byte.
    private func exchange(_ message: [UInt8], expecting answer: UInt8, refusal: String = "ssh-agent refused the request") throws -> SSHWireReader {
        let descriptor = Self.openSocket()
        guard descriptor >= 0 else { throw unreachable(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socket.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { throw unreachable("the socket's path is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw unreachable(String(cString: strerror(errno))) }
        var framed = SSHWireWriter()
        framed.string(message)
        try writeAll(descriptor, framed.bytes)
        let length = try readExactly(descriptor, 4).reduce(0) { $0 << 8 | Int($1) }
        guard length > 0, length < 1 << 20 else { throw unreachable("it answered a message of \(length) bytes") }
        var body = SSHWireReader(try readExactly(descriptor, length))
        let type = try body.byte()
        guard type == answer else { throw SigningError(refusal, info: [("agent", socket)], suggestion: "add the key with `ssh-add`, or check the agent's prompt") }
        return body
    }

    /// A Unix stream socket (a function of its own: the property `socket` hides the C function's name).
    private static func openSocket() -> Int32 {
        #if canImport(Darwin)
        Darwin.socket(AF_UNIX, streamType, 0)
        #elseif os(Linux)
        Glibc.socket(AF_UNIX, streamType, 0)
        #else
        -1
        #endif
    }

    private func unreachable(_ reason: String) -> SigningError {
        SigningError(
            "cannot reach ssh-agent at \(socket): \(reason)", suggestion: "start ssh-agent and set SSH_AUTH_SOCK, or give a key file",
            category: .environment)
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Self.noSignal) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw unreachable(String(cString: strerror(errno))) }
            sent += count
        }
    }

    private func readExactly(_ descriptor: Int32, _ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let read = bytes[got...].withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { throw unreachable("the connection closed") }
            got += read
        }
        return bytes
    }
}
