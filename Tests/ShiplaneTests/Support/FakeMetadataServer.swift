import Foundation
import Hummingbird
import Testing

/// The Compute Engine metadata server's access-token endpoint, written from Google's published
/// description of it ("About VM metadata", "Query VM metadata", "Authenticate workloads using
/// service accounts") — not from Shiplane's client:
///
/// - `GET /computeMetadata/v1/instance/service-accounts/default/token` (optional `scopes`, a
///   comma-separated list) answers `{"access_token": …, "expires_in": …, "token_type": "Bearer"}`;
/// - every request must carry `Metadata-Flavor: Google`, else 403; a request carrying
///   `X-Forwarded-For` is refused (403) as the server refuses proxied requests;
/// - every answer carries `Metadata-Flavor: Google` (what tells a client it is the metadata server);
/// - only GET; any other path or method is 404 here.
///
/// Reached as `GCE_METADATA_HOST` (host and port, no scheme), as Google's client libraries read it.
/// The tokens it hands out are `issue()`'s (the Cloud Storage stand-in's, so they open its API).
/// Requests the description refuses are violations, and `stop()` fails the test for each.
/// `marksAnswers: false` plays a server that is not Google's: the same token, no `Metadata-Flavor`.
final class FakeMetadataServer: @unchecked Sendable {
    static let tokenPath = "/computeMetadata/v1/instance/service-accounts/default/token"

    let lock = NSLock()
    let issue: @Sendable () -> String
    let marksAnswers: Bool
    var requestLog: [String] = []
    var handedOut: [String] = []
    var violations: [String] = []
    private(set) var server: TestServer?

    /// `host:port`, as `GCE_METADATA_HOST` names it.
    var host: String { "127.0.0.1:\(server?.port ?? 0)" }
    var log: [String] { lock.withLock { requestLog } }
    var tokens: [String] { lock.withLock { handedOut } }

    init(marksAnswers: Bool = true, issue: @escaping @Sendable () -> String) {
        self.marksAnswers = marksAnswers
        self.issue = issue
    }

    func start() async throws {
        server = try await TestServer.start { [self] request, _ in try await self.handle(request) }
    }

    func stop() {
        server?.stop()
        for problem in lock.withLock({ violations }) { Issue.record("the metadata server stand-in saw a request Google's description refuses: \(problem)") }
    }

    func handle(_ request: Request) async throws -> Response {
        _ = try await request.readBody(keeping: 0)
        let (path, query) = request.pathAndQuery
        let method = request.method.rawValue
        lock.withLock { requestLog.append("\(method) \(path) Metadata-Flavor=\(request.header("metadata-flavor") ?? "-")") }
        let marked = marksAnswers ? ["Metadata-Flavor": "Google"] : [:]
        guard request.header("metadata-flavor") == "Google" else {
            lock.withLock { violations.append("\(method) \(path) without Metadata-Flavor: Google") }
            return Reply.text(403, "Missing required header \"Metadata-Flavor\": \"Google\"\n", headers: marked)
        }
        if request.header("x-forwarded-for") != nil {
            lock.withLock { violations.append("\(method) \(path) with X-Forwarded-For") }
            return Reply.text(403, "Forbidden\n", headers: marked)
        }
        guard method == "GET", path == Self.tokenPath else { return Reply.text(404, "Not Found\n", headers: marked) }
        if let unknown = query.keys.first(where: { $0 != "scopes" }) {
            lock.withLock { violations.append("GET \(path) with an unknown parameter \(unknown)") }
            return Reply.text(400, "Bad Request\n", headers: marked)
        }
        let token = issue()
        lock.withLock { handedOut.append(token) }
        return Reply.json(200, ["access_token": token, "expires_in": 3599, "token_type": "Bearer"], headers: marked)
    }
}
