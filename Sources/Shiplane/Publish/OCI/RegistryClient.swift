import Foundation

/// Where an image goes: a registry's base URL and a repository in it.
package struct RegistryTarget: Codable, Sendable, Equatable {
    /// `https://ghcr.io`, or `http://127.0.0.1:5000` for a registry on this machine.
    package var base: String
    /// `acme/app`.
    package var repository: String
    /// The registry's host as an image reference names it (`ghcr.io`, `127.0.0.1:5000`).
    package var host: String

    /// `host/repository:tag`, as messages name an image.
    package func display(_ tag: String) -> String { "\(host)/\(repository):\(tag)" }

    /// Parses an image reference without a tag: `ghcr.io/acme/app`, `127.0.0.1:5000/app`,
    /// `acme/app` (Docker Hub). A registry on localhost or a loopback address is reached over
    /// plain HTTP, as docker and skopeo's insecure default for loopback do; every other over HTTPS.
    /// - Returns: nil when the reference is malformed.
    package static func parse(_ reference: String) -> RegistryTarget? {
        var parts = reference.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !reference.contains("@"), parts.allSatisfy({ !$0.isEmpty }), let first = parts.first else { return nil }
        var host = "docker.io"
        if parts.count > 1, first.contains(".") || first.contains(":") || first == "localhost" {
            host = first
            parts.removeFirst()
        } else if parts.count == 1 {
            parts.insert("library", at: 0)
        }
        let repository = parts.joined(separator: "/")
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-/")
        guard repository.allSatisfy({ allowed.contains($0) }), !repository.contains(":") else { return nil }
        let hostName = host.split(separator: ":").first.map(String.init) ?? host
        let loopback = hostName == "localhost" || hostName.hasPrefix("127.") || hostName == "[::1]"
        let base = host == "docker.io" ? "https://registry-1.docker.io" : (loopback ? "http://" : "https://") + host
        return RegistryTarget(base: base, repository: repository, host: host)
    }
}

/// How to sign in: `REGISTRY_USERNAME` and `REGISTRY_PASSWORD` (Basic, or exchanged for a Bearer
/// token at the registry's token service), or `REGISTRY_TOKEN` sent as a Bearer token as it is.
package struct RegistryCredentials: Sendable {
    package var username: String?
    package var password: String?
    package var token: String?

    /// The credentials of an environment; none set is anonymous access. `prefix`: another set
    /// (`BASE_REGISTRY_USERNAME`, … for a base image's registry).
    package static func from(_ variables: [String: String], prefix: String = "") -> RegistryCredentials {
        func value(_ name: String) -> String? { variables[prefix + name].flatMap { $0.isEmpty ? nil : $0 } }
        return RegistryCredentials(username: value("REGISTRY_USERNAME"), password: value("REGISTRY_PASSWORD"), token: value("REGISTRY_TOKEN"))
    }

    /// `Basic base64(user:password)`, or nil without both.
    var basic: String? {
        guard let username, let password else { return nil }
        return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// Every value that must never be shown (the password, the token, the Basic header's value).
    var secrets: [String] {
        [password, token, basic.map { String($0.dropFirst("Basic ".count)) }].compactMap { $0 }
    }
}

/// A registry's answer that is not a success: the status and the spec's error codes.
package struct RegistryFailure: ReportableError {
    package var message: String
    package var suggestion: String?
    package var status: Int
    package var codes: [String]
}

/// The OCI Distribution Spec calls an image push needs, signed in once.
package struct RegistryClient: Sendable {
    package var target: RegistryTarget
    package var transport: HTTPTransport
    /// The `Authorization` header every request carries; nil for anonymous access.
    package var authorization: String?

    package static let manifestAccept = [
        OCIImage.manifestMediaType, "application/vnd.oci.image.index.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json", "application/vnd.docker.distribution.manifest.list.v2+json",
    ].joined(separator: ", ")

    // MARK: - Signing in

    /// Reaches `GET /v2/`, answers its challenge (Basic, or a Bearer token for pull and push on the
    /// repository) and checks the registry accepts the result.
    /// - Throws: `RegistryFailure` for an unreachable registry or refused credentials, saying which.
    /// `pulling`: other repositories of the registry the token must also read (blob mounts, a base image).
    /// `pushing: false`: a token to read the repository only (a base image on another registry).
    package static func connect(target: RegistryTarget, credentials: RegistryCredentials, transport: HTTPTransport,
                                pulling: [String] = [], pushing: Bool = true) async throws -> RegistryClient {
        var client = RegistryClient(target: target, transport: transport, authorization: credentials.token.map { "Bearer " + $0 })
        let first = try await client.send(.get, "/v2/")
        if first.isSuccess { return client }
        guard first.status == 401, credentials.token == nil else {
            throw client.failure(first, doing: "reach the registry at \(target.base)")
        }
        let challenge = first.header("www-authenticate") ?? ""
        let (scheme, parameters) = Self.parseChallenge(challenge)
        switch scheme {
        case "basic":
            guard let basic = credentials.basic else {
                throw RegistryFailure(message: "the registry \(target.host) asks for a user name and password",
                                      suggestion: "set REGISTRY_USERNAME and REGISTRY_PASSWORD; nothing was sent", status: 401, codes: [])
            }
            client.authorization = basic
        case "bearer":
            guard let realm = parameters["realm"], var components = URLComponents(string: realm) else {
                throw RegistryFailure(message: "the registry \(target.host) asks for a Bearer token without saying where to get one (\(challenge))",
                                      suggestion: "set REGISTRY_TOKEN to a token the registry accepts", status: 401, codes: [])
            }
            var query = components.queryItems ?? []
            if let service = parameters["service"] { query.append(URLQueryItem(name: "service", value: service)) }
            query.append(URLQueryItem(name: "scope", value: "repository:\(target.repository):" + (pushing ? "pull,push" : "pull")))
            for other in pulling where other != target.repository {
                query.append(URLQueryItem(name: "scope", value: "repository:\(other):pull"))
            }
            components.queryItems = query
            guard let url = components.string else { throw RegistryFailure(message: "\(realm) is not a URL", status: 401, codes: []) }
            let answer = try await transport.send(HTTPRequest(method: .get, url: url, headers: credentials.basic.map { [("Authorization", $0)] } ?? []))
            guard answer.isSuccess else {
                throw client.failure(answer, doing: "get a token for \(target.repository) from \(realm)")
            }
            let json = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any]
            guard let token = (json?["token"] as? String) ?? (json?["access_token"] as? String), !token.isEmpty else {
                throw RegistryFailure(message: "the token service \(realm) answered without a token", suggestion: "check REGISTRY_USERNAME and REGISTRY_PASSWORD", status: answer.status, codes: [])
            }
            client.transport.redactor = SecretRedactor(secrets: client.transport.redactor.secrets + [token])
            client.authorization = "Bearer " + token
        default:
            throw RegistryFailure(message: "the registry \(target.host) asks for authentication Shiplane does not speak (\(challenge))",
                                  suggestion: "use a registry with Basic or Bearer token authentication", status: 401, codes: [])
        }
        let checked = try await client.send(.get, "/v2/")
        guard checked.isSuccess else { throw client.failure(checked, doing: "sign in to the registry \(target.host)") }
        return client
    }

    /// The scheme (lowercased) and parameters of a `WWW-Authenticate` header (RFC 9110 11.6.1).
    static func parseChallenge(_ header: String) -> (scheme: String, parameters: [String: String]) {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { return (trimmed.lowercased(), [:]) }
        var parameters: [String: String] = [:]
        var rest = trimmed[trimmed.index(after: space)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "\"" {
                    if character == "\\" { rest = rest.dropFirst() }
                    if let next = rest.first { value.append(next) }
                    rest = rest.dropFirst()
                }
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            parameters[name] = value
        }
        return (String(trimmed[..<space]).lowercased(), parameters)
    }

    // MARK: - Blobs

    /// Whether the repository holds the blob (HEAD).
    package func hasBlob(_ digest: String) async throws -> Bool {
        let response = try await send(.head, "/v2/\(target.repository)/blobs/\(digest)")
        if response.status == 404 { return false }
        guard response.isSuccess else { throw failure(response, doing: "look for blob \(digest) in \(target.repository)") }
        return true
    }

    /// Uploads a blob: POST for an upload session, then one PUT with the bytes (monolithic) or
    /// PATCHes of `chunkSize` bytes and a closing PUT (chunked); the registry checks the digest.
    /// With `mountFrom`, the POST first asks the registry to mount the blob from that repository
    /// (`?mount=<digest>&from=<repository>`): 201 is mounted, nothing to send; 202 is an upload
    /// session instead (the registry could not or would not mount), and the bytes go up in it.
    /// - Returns: true when the blob was mounted.
    @discardableResult
    package func uploadBlob(_ blob: OCIImage.Blob, chunkSize: Int64?, mountFrom: String? = nil) async throws -> Bool {
        var path = "/v2/\(target.repository)/blobs/uploads/"
        if let mountFrom {
            path += "?mount=" + blob.digest.replacingOccurrences(of: ":", with: "%3A") + "&from=" + mountFrom
        }
        var start = try await send(.post, path, repeatable: true)
        if mountFrom != nil, start.status == 201 {
            try check(start, blob: blob)
            return true
        }
        guard start.status == 202, var location = start.header("location") else {
            throw failure(start, doing: "start an upload of \(blob.digest) to \(target.repository)")
        }
        if let chunkSize, blob.size > chunkSize, case let .file(file) = blob.body {
            var offset: Int64 = 0
            while offset < blob.size {
                let length = min(chunkSize, blob.size - offset)
                start = try await send(.patch, location, headers: [("Content-Type", "application/octet-stream"),
                                                                    ("Content-Range", "\(offset)-\(offset + length - 1)")],
                                       body: .fileSlice(path: file, offset: offset, length: length))
                guard start.status == 202, let next = start.header("location") else {
                    throw failure(start, doing: "send bytes \(offset)-\(offset + length - 1) of \(blob.digest)")
                }
                location = next
                offset += length
            }
            let done = try await send(.put, Self.adding(digest: blob.digest, to: location), headers: [("Content-Length", "0")])
            try check(done, blob: blob)
        } else {
            let done = try await send(.put, Self.adding(digest: blob.digest, to: location),
                                      headers: [("Content-Type", "application/octet-stream")], body: blob.body)
            try check(done, blob: blob)
        }
        return false
    }

    /// Asks the registry to mount a blob from another of its repositories. Returns true when it
    /// did (201); false when it declined (202: the upload session it opened instead is cancelled).
    package func mountBlob(_ digest: String, from repository: String) async throws -> Bool {
        let start = try await send(.post, "/v2/\(target.repository)/blobs/uploads/?mount=" + digest.replacingOccurrences(of: ":", with: "%3A") + "&from=" + repository,
                                   repeatable: true)
        if start.status == 201 { return true }
        guard start.status == 202 else { throw failure(start, doing: "mount \(digest) from \(repository) into \(target.repository)") }
        if let location = start.header("location") { _ = try? await send(.delete, location) }
        return false
    }

    /// A small blob (a config) read whole, its digest checked.
    /// - Throws: `RegistryFailure` when it is not there or its bytes do not have its digest.
    package func smallBlob(_ digest: String, of image: BaseImageReference) async throws -> [UInt8] {
        let response = try await send(.get, "/v2/\(target.repository)/blobs/\(digest)")
        guard response.isSuccess else { throw failure(response, doing: "read blob \(digest) of \(image.display)") }
        guard OCIImage.digest(of: response.body) == digest else {
            throw RegistryFailure(message: "blob \(digest) of \(image.display) came back with digest \(OCIImage.digest(of: response.body))",
                                  suggestion: "run again; report it if it persists", status: response.status, codes: [])
        }
        return response.body
    }

    /// Downloads a blob to `path` as it arrives (never whole in memory), then checks its size and
    /// SHA-256 against `digest`; a blob that does not match is removed and an error.
    /// - Throws: `RegistryFailure` for a refused read or bytes that are not the blob.
    package func downloadBlob(_ digest: String, size: Int64, to path: String) async throws {
        var request = HTTPRequest(method: .get, url: target.base + "/v2/\(target.repository)/blobs/\(digest)",
                                  headers: authorization.map { [("Authorization", $0)] } ?? [], timeout: 3600)
        request.responseFile = path
        request.maxResponseFileBytes = size
        let response = try await transport.send(request)
        guard response.isSuccess else { throw failure(response, doing: "read blob \(digest) of \(target.repository)") }
        let read = try FileDigests.read(path)
        let got = "sha256:" + OCIImage.hex(read.sha256)
        guard read.size == size, got == digest else {
            try? FileManager.default.removeItem(atPath: path)
            throw RegistryFailure(message: "blob \(digest) of \(target.repository) came as \(read.size) bytes with digest \(got), not \(size) bytes",
                                  suggestion: "run again; report it if it persists", status: response.status, codes: [])
        }
    }

    private func check(_ response: HTTPResponse, blob: OCIImage.Blob) throws {
        guard response.status == 201 else { throw failure(response, doing: "finish the upload of \(blob.digest)") }
        if let digest = response.header("docker-content-digest"), digest != blob.digest {
            throw RegistryFailure(message: "the registry stored \(digest) for the blob sent as \(blob.digest)",
                                  suggestion: "run again; report it if it persists", status: response.status, codes: [])
        }
    }

    static func adding(digest: String, to location: String) -> String {
        location + (location.contains("?") ? "&" : "?") + "digest=" + digest.replacingOccurrences(of: ":", with: "%3A")
    }

    // MARK: - Manifests

    /// The digest the tag (or digest) points at; nil when there is no such manifest.
    package func manifestDigest(_ reference: String) async throws -> String? {
        let response = try await send(.head, "/v2/\(target.repository)/manifests/\(reference)", headers: [("Accept", Self.manifestAccept)])
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, doing: "read \(target.display(reference))") }
        if let digest = response.header("docker-content-digest") { return digest }
        return try await manifest(reference).map { OCIImage.digest(of: $0.bytes) }
    }

    /// A manifest's bytes and media type; nil when there is none.
    package func manifest(_ reference: String) async throws -> (bytes: [UInt8], mediaType: String)? {
        let response = try await send(.get, "/v2/\(target.repository)/manifests/\(reference)", headers: [("Accept", Self.manifestAccept)])
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, doing: "read \(target.display(reference))") }
        return (response.body, response.mediaType ?? OCIImage.manifestMediaType)
    }

    /// Puts a manifest at a tag and checks the digest the registry gives it.
    package func putManifest(_ bytes: [UInt8], mediaType: String, tag: String) async throws {
        let response = try await send(.put, "/v2/\(target.repository)/manifests/\(tag)", headers: [("Content-Type", mediaType)], body: .bytes(bytes))
        guard response.status == 201 else { throw failure(response, doing: "put the manifest at \(target.display(tag))") }
        let expected = OCIImage.digest(of: bytes)
        if let digest = response.header("docker-content-digest"), digest != expected {
            throw RegistryFailure(message: "the registry stored \(digest) for the manifest sent as \(expected)",
                                  suggestion: "run again; report it if it persists", status: response.status, codes: [])
        }
    }

    /// The repository's tags (`GET /v2/<name>/tags/list`, following the `Link` header's next
    /// pages); none when the repository does not exist.
    package func tags() async throws -> [String] {
        var next: String? = "/v2/\(target.repository)/tags/list"
        var all: [String] = []
        var pages = 0
        while let page = next, pages < 1000 {
            pages += 1
            let response = try await send(.get, page)
            if response.status == 404 { return all }
            guard response.isSuccess else { throw failure(response, doing: "list the tags of \(target.repository)") }
            let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
            all += json?["tags"] as? [String] ?? []
            next = response.header("link").flatMap(Self.nextPage)
        }
        return all
    }

    /// The `rel="next"` target of a `Link` header (`</v2/acme/app/tags/list?last=b&n=2>; rel="next"`).
    static func nextPage(_ link: String) -> String? {
        guard link.contains("rel=\"next\""), let open = link.firstIndex(of: "<"), let close = link.firstIndex(of: ">"), open < close else { return nil }
        return String(link[link.index(after: open)..<close])
    }

    /// Deletes a manifest by digest. Returns false when the registry refuses deletes (405, or the spec's `UNSUPPORTED`).
    package func deleteManifest(_ digest: String) async throws -> Bool {
        let response = try await send(.delete, "/v2/\(target.repository)/manifests/\(digest)")
        if response.isSuccess || response.status == 404 { return true }
        let codes = Self.errorCodes(response)
        if response.status == 405 || codes.contains("UNSUPPORTED") { return false }
        throw failure(response, doing: "delete \(target.repository)@\(digest)")
    }

    // MARK: - Requests

    private func send(_ method: HTTPRequestMethod, _ pathOrURL: String, headers: [(name: String, value: String)] = [],
                      body: HTTPRequestBody = .none, repeatable: Bool? = nil) async throws -> HTTPResponse {
        let url = pathOrURL.hasPrefix("http://") || pathOrURL.hasPrefix("https://") ? pathOrURL : target.base + pathOrURL
        var request = HTTPRequest(method: method, url: url, headers: headers + (authorization.map { [("Authorization", $0)] } ?? []),
                                  body: body, timeout: body.isFile ? 3600 : 60)
        if let repeatable { request.isRepeatable = repeatable }
        return try await transport.send(request)
    }

    static func errorCodes(_ response: HTTPResponse) -> [String] {
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (json?["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
    }

    private func failure(_ response: HTTPResponse, doing what: String) -> RegistryFailure {
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        let errors = (json?["errors"] as? [[String: Any]]) ?? []
        let codes = errors.compactMap { $0["code"] as? String }
        var message = "cannot \(what): HTTP \(response.status)"
        let said = errors.compactMap { error -> String? in
            guard let code = error["code"] as? String else { return nil }
            return code + ((error["message"] as? String).map { " (\($0))" } ?? "")
        }
        if !said.isEmpty { message += " " + said.joined(separator: ", ") } else if !response.body.isEmpty, json == nil {
            message += ": " + transport.redactor.redact(response.bodySnippet())
        }
        let suggestion: String? = switch response.status {
        case 401: "the registry refused the credentials: set REGISTRY_USERNAME and REGISTRY_PASSWORD (or REGISTRY_TOKEN) to ones it accepts"
        case 403: "the credentials may not push to \(target.repository): grant them push access"
        case 404: "check the registry's address and the repository's name"
        case 405: "the registry refuses this call (a read-only mirror, or deletes turned off)"
        default: nil
        }
        return RegistryFailure(message: message, suggestion: suggestion, status: response.status, codes: codes)
    }
}
