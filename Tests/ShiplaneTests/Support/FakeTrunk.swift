import Foundation
import Hummingbird

/// An in-process CocoaPods trunk on 127.0.0.1, written from trunk's API description
/// (CocoaPods/trunk.cocoapods.org-api-doc: `/api/v1`, sessions and pods) and what its app's API
/// controllers answer: every answer is JSON and every error `{"error": …}`; a POST whose media
/// type is not `application/json` is 415; `Authorization: Token …` (a missing token is 401
/// "Please supply an authentication token.", an unknown one 401 "Authentication token is invalid
/// or unverified."); `GET /sessions`; `GET /pods/{name}` (versions and owners, 404 without a
/// published version); `GET /pods/{name}/versions/{version}` (messages and data_url, 404);
/// `POST /pods` with a specification as JSON: unreadable JSON 400, a specification without the
/// attributes trunk's linter requires (name, version, summary, authors, homepage, license,
/// source) or with an attribute that is not a podspec attribute 422, a pod another owner holds
/// 403, an existing version 409 with its Location, else published and a 303 redirect to the
/// version. A request the description refuses is also kept in `violations`.
final class FakeTrunk: @unchecked Sendable {
    private let lock = NSLock()
    private var specs: [String: [String: [String: Any]]] = [:]
    private var requests: [String] = []
    private var problems: [String] = []
    private(set) var server: TestServer?
    let token: String
    /// Pods pushed by another owner: 403 for this token.
    var othersPods: Set<String> = []
    /// Seconds a push waits, after trunk stored the version, before it is answered.
    var answerDelay: Double = 0

    static let attributes: Set<String> = [
        "name", "version", "summary", "description", "homepage", "license", "authors", "source", "platforms", "swift_versions",
        "source_files", "public_header_files", "private_header_files", "resources", "resource_bundles", "exclude_files",
        "dependencies", "frameworks", "weak_frameworks", "libraries", "requires_arc", "subspecs", "testspecs", "appspecs",
        "default_subspecs", "module_name", "module_map", "social_media_url", "documentation_url", "screenshots", "deprecated",
        "deprecated_in_favor_of", "static_framework", "vendored_frameworks", "vendored_libraries", "xcconfig",
        "pod_target_xcconfig", "user_target_xcconfig", "prefix_header_contents", "prefix_header_file", "preserve_paths",
        "compiler_flags", "cocoapods_version", "prepare_command", "script_phases", "info_plist", "header_dir",
        "header_mappings_dir", "readme", "changelog", "ios", "osx", "tvos", "watchos", "visionos", "resource", "swift_version",
    ]

    init(token: String) { self.token = token }

    var baseURL: String { server?.baseURL ?? "" }
    var log: [String] { lock.withLock { requests } }
    var violations: [String] { lock.withLock { problems } }
    var pushes: Int { log.filter { $0.hasPrefix("POST /api/v1/pods") }.count }
    func spec(_ name: String, _ version: String) -> [String: Any]? { lock.withLock { specs[name]?[version] } }

    func start() async throws {
        server = try await TestServer.start { [self] request, _ in try await self.handle(request) }
    }

    func stop() { server?.stop() }

    private func error(_ status: Int, _ message: Any, headers: [String: String] = [:], violation: Bool = false) -> Response {
        if violation { lock.withLock { problems.append("\(status): \(message)") } }
        return Reply.json(status, ["error": message], headers: headers)
    }

    private func handle(_ request: Request) async throws -> Response {
        let (path, _) = request.pathAndQuery
        let (bytes, _) = try await request.readBody(keeping: 4 << 20)
        lock.withLock { requests.append("\(request.method) \(path)") }
        let mediaType = (request.header("Content-Type") ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if request.method == .post || request.method == .put, mediaType != "application/json" {
            return error(415, "Unable to accept input with Content-Type `\(mediaType)`, must be `application/json`.", violation: true)
        }
        let authorization = (request.header("Authorization") ?? "").trimmingCharacters(in: .whitespaces)
        let given = authorization.hasPrefix("Token") ? authorization.split(separator: " ", maxSplits: 1).last.map(String.init) : nil
        let owner = given == token
        func requireOwner() -> Response? {
            if owner { return nil }
            return error(401, given == nil || given?.isEmpty == true ? "Please supply an authentication token." : "Authentication token is invalid or unverified.")
        }
        guard path.hasPrefix("/api/v1/") else { return error(404, "Not found.") }
        let parts = path.dropFirst("/api/v1/".count).split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        switch (request.method, parts.count) {
        case (.get, 1) where parts[0] == "sessions":
            if let refused = requireOwner() { return refused }
            return Reply.json(200, ["email": "dev@acme.test", "name": "Acme", "sessions": [["created_at": "2026-01-01 00:00:00 UTC", "description": "ci"]]])
        case (.get, 2) where parts[0] == "pods":
            guard let versions = lock.withLock({ specs[parts[1]] }), !versions.isEmpty else { return error(404, "No pod found with the specified name.") }
            return Reply.json(200, ["versions": versions.keys.sorted().map { ["name": $0, "created_at": "2026-01-01 00:00:00 +0000"] },
                                    "owners": [["name": "Acme", "email": "dev@acme.test"]]])
        case (.get, 4) where parts[0] == "pods" && parts[2] == "versions":
            guard spec(parts[1], parts[3]) != nil else { return error(404, "No pod found with the specified version.") }
            return Reply.json(200, ["messages": [["2026-01-01 00:00:00 +0000": "Push for `\(parts[1]) \(parts[3])' initiated."]],
                                    "data_url": "https://raw.githubusercontent.com/CocoaPods/Specs/main/Specs/\(parts[1])/\(parts[3])/\(parts[1]).podspec.json"])
        case (.post, 1) where parts[0] == "pods":
            if let refused = requireOwner() { return refused }
            guard let spec = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
                return error(400, "Unable to load a Pod Specification from the provided input.", violation: true)
            }
            var invalid: [String] = []
            for key in ["name", "version", "summary", "authors", "homepage", "license", "source"] where spec[key] == nil { invalid.append("Missing required attribute `\(key)`.") }
            for key in spec.keys.sorted() where !Self.attributes.contains(key) { invalid.append("Unrecognized `\(key)` key.") }
            guard invalid.isEmpty, let name = spec["name"] as? String, let version = spec["version"] as? String else {
                return error(422, invalid, violation: true)
            }
            if othersPods.contains(name) { return error(403, "You are not allowed to push new versions for this pod.") }
            let location = "\(baseURL)/api/v1/pods/\(name)/versions/\(version)"
            if self.spec(name, version) != nil {
                return error(409, "Unable to accept duplicate entry for: \(name) (\(version))", headers: ["Location": location])
            }
            lock.withLock { specs[name, default: [:]][version] = spec }
            if answerDelay > 0 { try await Task.sleep(nanoseconds: UInt64(answerDelay * 1_000_000_000)) }
            return Reply.empty(303, headers: ["Location": location])
        default:
            return error(404, "Not found.")
        }
    }
}
