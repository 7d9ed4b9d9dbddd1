import Foundation

/// Where a Google Cloud Storage bucket is reached: the JSON API's origin and the bucket.
package struct GCSTarget: Codable, Sendable, Equatable {
    /// `https://storage.googleapis.com`, or an emulator's origin (`STORAGE_EMULATOR_HOST`).
    package var endpoint: String
    package var bucket: String

    /// `gs://bucket/name`, as messages name an object.
    func display(_ name: String) -> String { "gs://\(bucket)/\(name)" }

    /// The target of `bucket`: `STORAGE_EMULATOR_HOST` (as Google's client libraries read it),
    /// else Google's endpoint.
    static func of(bucket: String, variables: [String: String]) -> GCSTarget {
        var endpoint = variables["STORAGE_EMULATOR_HOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "https://storage.googleapis.com"
        if !endpoint.contains("://") { endpoint = "http://" + endpoint }
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        return GCSTarget(endpoint: endpoint, bucket: bucket)
    }
}

/// A Google Cloud Storage answer that is not a success: status and Google's reason.
package struct GCSFailure: ReportableError {
    package var message: String
    package var suggestion: String?
    package var status: Int
}

/// How requests to Google Cloud Storage are authorised.
enum GCSCredentials: Sendable {
    /// A service account's JSON key: an RS256 assertion exchanged at its `token_uri`.
    case serviceAccount(GooglePlayServiceAccount, file: String)
    /// An access token given as it is (`GOOGLE_OAUTH_ACCESS_TOKEN`).
    case accessToken(String)
    /// The GCE/GKE metadata server's token for the machine's service account.
    case metadataServer(String)
    /// No credentials: an emulator (`STORAGE_EMULATOR_HOST`), as Google's client libraries do.
    case anonymous

    static let scope = "https://www.googleapis.com/auth/devstorage.read_write"

    /// The credentials match would use: `MATCH_GOOGLE_CLOUD_KEYS_FILE` (match's
    /// `google_cloud_keys_file`), else `gc_keys.json` or `fastlane/gc_keys.json` in the working
    /// folder (match's defaults), else `GOOGLE_APPLICATION_CREDENTIALS`, else
    /// `GOOGLE_OAUTH_ACCESS_TOKEN`; else the metadata server named by `GCE_METADATA_HOST` (also
    /// in front of an emulator: naming it asks for its token); else none with an emulator
    /// (`STORAGE_EMULATOR_HOST`); else the metadata server at `metadata.google.internal`.
    /// - Throws: `ShiplaneError` naming an unreadable or unusable keys file (never its key).
    static func from(_ variables: [String: String], workingDirectory: String) throws -> GCSCredentials {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        let named = value("MATCH_GOOGLE_CLOUD_KEYS_FILE")
        let candidates = named.map { [$0] } ?? ["gc_keys.json", "fastlane/gc_keys.json"] + (value("GOOGLE_APPLICATION_CREDENTIALS").map { [$0] } ?? [])
        for candidate in candidates {
            let path = candidate.hasPrefix("/") ? candidate : workingDirectory + "/" + candidate
            guard let data = FileManager.default.contents(atPath: path) else {
                if named != nil {
                    throw ShiplaneError("MATCH_GOOGLE_CLOUD_KEYS_FILE names \(candidate), which cannot be read",
                                        suggestion: "set it to the service account's JSON key file (match's google_cloud_keys_file); nothing was read or changed")
                }
                continue
            }
            do {
                return .serviceAccount(try GooglePlayServiceAccount.parse(String(decoding: data, as: UTF8.self)), file: candidate)
            } catch let failure as StoreCredentialsError {
                throw ShiplaneError("the Google Cloud keys file \(candidate) is unusable: \(failure.message)",
                                    suggestion: "download a new JSON key for the service account that may use the bucket; nothing was read or changed")
            }
        }
        if let token = value("GOOGLE_OAUTH_ACCESS_TOKEN") { return .accessToken(token) }
        if let host = value("GCE_METADATA_HOST") { return .metadataServer(host) }
        if value("STORAGE_EMULATOR_HOST") != nil { return .anonymous }
        return .metadataServer("metadata.google.internal")
    }
}

/// The Google Cloud Storage JSON API calls a match store needs: list a prefix (page after
/// page), read an object with its generation, write one only while it has the generation read
/// (`ifGenerationMatch`, 0 for an object that must not exist yet), delete likewise.
package struct GCSClient: Sendable {
    package var target: GCSTarget
    let credentials: GCSCredentials
    var transport: HTTPTransport
    let tokens = TokenCache()
    /// Told every access token handed out, so that every output redacts it.
    let onToken: @Sendable (String) -> Void
    let now: @Sendable () -> Date

    init(target: GCSTarget, credentials: GCSCredentials, transport: HTTPTransport, onToken: @escaping @Sendable (String) -> Void = { _ in },
         now: @escaping @Sendable () -> Date = { Date() }) {
        self.target = target
        self.credentials = credentials
        var transport = transport
        if case .serviceAccount(let account, _) = credentials { transport.redactor = transport.redactor.adding(account.secretTexts) }
        if case .accessToken(let token) = credentials { transport.redactor = transport.redactor.adding([token]) }
        self.transport = transport
        self.onToken = onToken
        self.now = now
    }

    /// An object as the listing gives it.
    package struct ListedObject: Sendable, Equatable {
        package var name: String
        package var generation: Int64
    }

    // MARK: - Calls

    /// Checks that the bucket exists and the credentials reach it (buckets.get).
    /// - Throws: `GCSFailure` saying which.
    func checkBucket() async throws {
        let response = try await send(.get, "/storage/v1/b/\(SignatureV4.encode(target.bucket))")
        guard response.isSuccess else { throw failure(response, doing: "reach the bucket \(target.bucket) at \(target.endpoint)") }
    }

    /// Every object whose name starts with `prefix` (objects.list, following `nextPageToken`),
    /// in Google's order (by name). `maxResults` sets the page size (Google's default: 1,000).
    func list(prefix: String, maxResults: Int? = nil) async throws -> [ListedObject] {
        struct Page: Decodable {
            struct Item: Decodable { var name: String; var generation: String }
            var items: [Item]?
            var nextPageToken: String?
        }
        var found: [ListedObject] = []
        var token: String?
        var seen = Set<String>()
        while true {
            var query = "prefix=\(SignatureV4.encode(prefix))"
            if let maxResults { query += "&maxResults=\(maxResults)" }
            if let token { query += "&pageToken=\(SignatureV4.encode(token))" }
            let response = try await send(.get, "/storage/v1/b/\(SignatureV4.encode(target.bucket))/o?" + query)
            guard response.isSuccess, let page = try? JSONDecoder().decode(Page.self, from: Data(response.body)) else {
                throw failure(response, doing: "list \(target.display(prefix))")
            }
            for item in page.items ?? [] {
                guard let generation = Int64(item.generation) else { continue }
                found.append(ListedObject(name: item.name, generation: generation))
            }
            guard let next = page.nextPageToken, !next.isEmpty else { return found }
            guard seen.insert(next).inserted else {
                throw ShiplaneError("\(target.endpoint) answered the same nextPageToken twice listing \(target.display(prefix))",
                                    suggestion: "check that the endpoint is Google Cloud Storage's JSON API; nothing was changed")
            }
            token = next
        }
    }

    /// An object's generation; nil when there is none (objects.get).
    func generation(_ name: String) async throws -> Int64? {
        let response = try await send(.get, objectPath(name))
        if response.status == 404 { return nil }
        struct Resource: Decodable { var generation: String }
        guard response.isSuccess, let resource = try? JSONDecoder().decode(Resource.self, from: Data(response.body)),
              let generation = Int64(resource.generation) else { throw failure(response, doing: "read \(target.display(name))") }
        return generation
    }

    /// An object's bytes and the generation they are; nil when there is none. The bytes are
    /// read at the generation the metadata named (`alt=media&generation=`), so the two agree.
    func get(_ name: String) async throws -> (bytes: Data, generation: Int64)? {
        guard let generation = try await generation(name) else { return nil }
        let response = try await send(.get, objectPath(name) + "?alt=media&generation=\(generation)")
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, doing: "read \(target.display(name))") }
        return (Data(response.body), generation)
    }

    /// Writes `bytes` only while the object has `generation` (0: while there is none), in one
    /// request (objects.insert, `uploadType=media`, `ifGenerationMatch`); returns the new
    /// generation, or nil when the precondition failed (412: someone wrote it meanwhile).
    func put(_ name: String, bytes: Data, ifGeneration generation: Int64) async throws -> Int64? {
        let path = "/upload/storage/v1/b/\(SignatureV4.encode(target.bucket))/o?uploadType=media&name=\(SignatureV4.encode(name))&ifGenerationMatch=\(generation)"
        let response = try await send(.post, path, headers: [("Content-Type", "application/octet-stream")], body: .bytes(Array(bytes)))
        if response.status == 412 { return nil }
        struct Resource: Decodable { var generation: String }
        guard response.isSuccess, let resource = try? JSONDecoder().decode(Resource.self, from: Data(response.body)),
              let written = Int64(resource.generation) else { throw failure(response, doing: "write \(target.display(name))") }
        return written
    }

    /// Deletes the object only while it has `generation`; false when it has another (412). An
    /// object already gone counts as deleted.
    func delete(_ name: String, ifGeneration generation: Int64) async throws -> Bool {
        let response = try await send(.delete, objectPath(name) + "?ifGenerationMatch=\(generation)")
        if response.status == 412 { return false }
        guard response.isSuccess || response.status == 404 else { throw failure(response, doing: "delete \(target.display(name))") }
        return true
    }

    // MARK: - Requests

    private func objectPath(_ name: String) -> String { "/storage/v1/b/\(SignatureV4.encode(target.bucket))/o/\(SignatureV4.encode(name))" }

    /// An access token for `credentials`, exchanged anew when the last is within five minutes of expiring; nil: anonymous.
    /// - Throws: `GCSFailure` when the exchange is refused or the metadata server cannot be reached.
    func accessToken() async throws -> String? {
        switch credentials {
        case .anonymous: return nil
        case .accessToken(let token): return token
        case .serviceAccount(let account, let file):
            if let token = tokens.valid(at: now()) { return token }
            let assertion = try account.assertion(now: now(), scope: GCSCredentials.scope)
            let form = "grant_type=" + SignatureV4.encode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + SignatureV4.encode(assertion)
            var transport = self.transport
            transport.redactor = transport.redactor.adding([assertion])
            let response = try await transport.send(HTTPRequest(
                method: .post, url: account.tokenURI, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: .bytes(Array(form.utf8))))
            return try keep(response, from: "Google's token service at \(account.tokenURI)",
                            suggestion: "the key in \(file) may be deleted or disabled: create a new JSON key for \(account.clientEmail)")
        case .metadataServer(let host):
            if let token = tokens.valid(at: now()) { return token }
            let url = (host.contains("://") ? host : "http://" + host) + "/computeMetadata/v1/instance/service-accounts/default/token"
            var request = HTTPRequest(method: .get, url: url, headers: [("Metadata-Flavor", "Google")], timeout: 10)
            request.connectTimeout = 3
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                throw GCSFailure(message: "no Google Cloud credentials: no keys file, no GOOGLE_OAUTH_ACCESS_TOKEN, and the metadata server (\(host)) cannot be reached",
                                 suggestion: "set MATCH_GOOGLE_CLOUD_KEYS_FILE to the service account's JSON key (match's google_cloud_keys_file), or GOOGLE_OAUTH_ACCESS_TOKEN; nothing was read or changed",
                                 status: 0)
            }
            // Google's metadata server marks every answer so; anything else (a proxy, a captive portal) is not it.
            guard response.header("Metadata-Flavor") == "Google" else {
                throw GCSFailure(message: "\(host) answered without Metadata-Flavor: Google (HTTP \(response.status)), so it is not Google's metadata server; no token was taken from it",
                                 suggestion: "point GCE_METADATA_HOST at the metadata server, or set MATCH_GOOGLE_CLOUD_KEYS_FILE to the service account's JSON key; nothing was read or changed",
                                 status: response.status)
            }
            return try keep(response, from: "the metadata server \(host)", suggestion: "give the machine a service account that may use the bucket")
        }
    }

    private func keep(_ response: HTTPResponse, from service: String, suggestion: String) throws -> String {
        struct Answer: Decodable { var access_token: String?; var expires_in: Double?; var error: String?; var error_description: String? }
        let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body))
        guard response.isSuccess, let token = answer?.access_token, !token.isEmpty else {
            let reason = [answer?.error, answer?.error_description].compactMap { $0 }.joined(separator: ": ")
            throw GCSFailure(message: "\(service) gave no access token: HTTP \(response.status)" + (reason.isEmpty ? "" : " " + transport.redactor.redact(reason)),
                             suggestion: suggestion + "; nothing was read or changed", status: response.status)
        }
        tokens.store(token, expires: now().addingTimeInterval(answer?.expires_in ?? 3600))
        onToken(token)
        return token
    }

    /// A POST is not sent twice: a conditional write whose answer was lost would come back 412.
    private func send(_ method: HTTPRequestMethod, _ path: String, headers: [(name: String, value: String)] = [],
                      body: HTTPRequestBody = .none) async throws -> HTTPResponse {
        var headers = headers + [("Accept", "application/json")]
        if let token = try await accessToken() { headers.append(("Authorization", "Bearer \(token)")) }
        let request = HTTPRequest(method: method, url: target.endpoint + path, headers: headers, body: body, timeout: 60)
        var transport = self.transport
        transport.redactor = transport.redactor.adding(tokens.all)
        return try await transport.send(request)
    }

    private func failure(_ response: HTTPResponse, doing what: String) -> GCSFailure {
        struct Body: Decodable { struct Inner: Decodable { var message: String? }; var error: Inner? }
        let said = (try? JSONDecoder().decode(Body.self, from: Data(response.body)))?.error?.message
        var message = "cannot \(what): HTTP \(response.status)"
        if let said { message += ": " + transport.redactor.redact(said) }
        let suggestion: String? = switch response.status {
        case 401: "the credentials were refused: check MATCH_GOOGLE_CLOUD_KEYS_FILE (a current service account key)"
        case 403: "the service account may not use this bucket: grant it Storage Object Admin (storage.objects.*) on it"
        case 404: "check the bucket's name (gs://BUCKET or MATCH_GOOGLE_CLOUD_BUCKET_NAME) and the project"
        default: nil
        }
        return GCSFailure(message: message, suggestion: suggestion, status: response.status)
    }
}
