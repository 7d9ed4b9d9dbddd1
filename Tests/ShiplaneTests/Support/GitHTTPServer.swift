import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A smart-HTTP git server on 127.0.0.1: basic auth in front of `git http-backend` run as CGI.
///
/// Every repository under `projectRoot` is served at `http://127.0.0.1:<port>/<name>`. A request
/// without the right `Authorization: Basic` header gets 401 with `WWW-Authenticate: Basic
/// realm="git"`, as GitHub's and GitLab's HTTPS endpoints answer. The server counts requests, so a
/// test can check that a client gives up after a bounded number of refusals.
final class GitHTTPServer: @unchecked Sendable {
    let projectRoot: String
    private let username: String
    private let password: String
    private let backend: String
    private let environment: [String: String]
    private let lock = NSLock()
    private var http: TestServer?
    private var requests = 0
    private var refused = 0
    private var pushes = 0
    private var heldPushes: [Int: TimeInterval] = [:]
    private var heldRefPushes: [String: TimeInterval] = [:]
    var port: Int { http?.port ?? 0 }

    /// The URL of `repository` (a folder name under `projectRoot`).
    func url(_ repository: String) -> String { "http://127.0.0.1:\(port)/\(repository)" }

    /// Every request received so far.
    var requestCount: Int { lock.withLock { requests } }
    /// The requests answered 401.
    var unauthorizedCount: Int { lock.withLock { refused } }

    private init(projectRoot: String, username: String, password: String, backend: String, environment: [String: String]) {
        self.projectRoot = projectRoot
        self.username = username
        self.password = password
        self.backend = backend
        self.environment = environment
    }

    /// Starts serving `projectRoot` and waits (at most 10 s) until the server listens.
    /// - Parameter environment: the environment of `git http-backend` (PATH, HOME, git config isolation).
    static func start(projectRoot: String, username: String, password: String, environment: [String: String]) async throws -> GitHTTPServer {
        let execPath = try runGitExecPath(environment: environment)
        let server = GitHTTPServer(
            projectRoot: projectRoot, username: username, password: password,
            backend: execPath + "/git-http-backend", environment: environment)
        server.http = try await TestServer.start { request, _ in try await server.respond(to: request) }
        return server
    }

    func stop() {
        http?.stop()
    }

    enum GitHTTPServerError: Error { case noExecPath }

    /// Holds back the answer to the `number`th push (`POST …/git-receive-pack`, from 1) for
    /// `seconds` after `git http-backend` has run it: the repository has taken the push, the
    /// client has not heard so (a client killed meanwhile never learns it landed).
    func holdAnswer(toPush number: Int, seconds: TimeInterval) {
        lock.withLock { heldPushes[number] = seconds }
    }

    /// Holds back the answer to the first push whose commands name `ref` (the pkt-lines
    /// `OLD NEW REF` before the pack) for `seconds` after `git http-backend` has run it.
    func holdAnswer(toPushUpdating ref: String, seconds: TimeInterval) {
        lock.withLock { heldRefPushes[ref] = seconds }
    }

    // MARK: - Requests

    private func respond(to request: Request) async throws -> Response {
        lock.withLock { requests += 1 }
        guard isAuthorized(request) else {
            lock.withLock { refused += 1 }
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Basic realm=\"git\""
            headers[.contentType] = "text/plain"
            return Response(status: .unauthorized, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "authentication required\n")))
        }
        var body: [UInt8] = []
        for try await chunk in request.body { body += chunk.readableBytesView }

        let target = request.uri.description
        let question = target.firstIndex(of: "?")
        let path = question.map { String(target[..<$0]) } ?? target
        let query = question.map { String(target[target.index(after: $0)...]) } ?? ""
        var cgi = environment
        cgi["GIT_PROJECT_ROOT"] = projectRoot
        cgi["GIT_HTTP_EXPORT_ALL"] = "1"
        cgi["REQUEST_METHOD"] = request.method.rawValue
        cgi["PATH_INFO"] = path.removingPercentEncoding ?? path
        cgi["QUERY_STRING"] = query
        cgi["CONTENT_TYPE"] = request.headers[.contentType] ?? ""
        cgi["CONTENT_LENGTH"] = String(body.count)
        cgi["REMOTE_USER"] = username
        cgi["REMOTE_ADDR"] = "127.0.0.1"
        if let protocolHeader = HTTPField.Name("Git-Protocol").flatMap({ request.headers[$0] }) {
            cgi["HTTP_GIT_PROTOCOL"] = protocolHeader
        }
        if let encoding = request.headers[.contentEncoding] { cgi["HTTP_CONTENT_ENCODING"] = encoding }

        let output = try await runCGI(input: body, environment: cgi)
        if request.method == .post && path.hasSuffix("/git-receive-pack") {
            let commands = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
            let hold: TimeInterval? = lock.withLock {
                pushes += 1
                if let ref = heldRefPushes.keys.first(where: { commands.contains(" " + $0 + "\0") || commands.contains(" " + $0 + "\n") }) {
                    return heldRefPushes.removeValue(forKey: ref)
                }
                return heldPushes[pushes]
            }
            if let hold { try await Task.sleep(nanoseconds: UInt64(hold * 1_000_000_000)) }
        }
        return Self.response(fromCGI: output)
    }

    private func isAuthorized(_ request: Request) -> Bool {
        guard let header = request.headers[.authorization], header.hasPrefix("Basic "),
              let decoded = Data(base64Encoded: String(header.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) })
        else { return false }
        return decoded == "\(username):\(password)"
    }

    /// Runs the backend off the cooperative pool (it blocks) and returns its whole output.
    private func runCGI(input: [UInt8], environment: [String: String]) async throws -> [UInt8] {
        let backend = backend
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: backend)
                    process.environment = environment
                    let stdin = Pipe(), stdout = Pipe()
                    process.standardInput = stdin
                    process.standardOutput = stdout
                    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
                    try process.run()
                    DispatchQueue.global().async {
                        stdin.fileHandleForWriting.write(Data(input))
                        try? stdin.fileHandleForWriting.close()
                    }
                    let output = stdout.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: [UInt8](output))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Splits CGI output into the `Status:` and other headers, and the body.
    static func response(fromCGI output: [UInt8]) -> Response {
        var headerEnd = output.count
        var bodyStart = output.count
        var index = 0
        while index < output.count {
            if output[index] == 0x0A {
                if index + 1 < output.count && output[index + 1] == 0x0A {
                    headerEnd = index; bodyStart = index + 2; break
                }
                if index + 2 < output.count && output[index + 1] == 0x0D && output[index + 2] == 0x0A {
                    headerEnd = index; bodyStart = index + 3; break
                }
            }
            index += 1
        }
        var status = HTTPResponse.Status.ok
        var headers = HTTPFields()
        let headerText = String(decoding: output[..<min(headerEnd, output.count)], as: UTF8.self)
        for line in headerText.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name.lowercased() == "status" {
                status = HTTPResponse.Status(code: Int(value.prefix(3)) ?? 500)
            } else if let field = HTTPField.Name(name) {
                headers[field] = value
            }
        }
        let body = bodyStart < output.count ? Array(output[bodyStart...]) : []
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static func runGitExecPath(environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["--exec-path"]
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, !path.isEmpty else { throw GitHTTPServerError.noExecPath }
        return path
    }
}
