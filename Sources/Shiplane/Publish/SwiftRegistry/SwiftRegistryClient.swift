import Foundation

/// A package in a Swift package registry: the registry's URL and the package's `scope.name`.
package struct SwiftRegistryPackage: Codable, Sendable, Equatable {
    /// `https://packages.example.com` (no trailing slash; it may carry a path).
    package var registry: String
    package var scope: String
    package var name: String

    /// `scope.name`.
    package var id: String { "\(scope).\(name)" }

    /// `/{scope}/{name}/{version}` on the registry.
    package func releaseURL(_ version: String) -> String { "\(registry)/\(scope)/\(name)/\(version)" }

    /// Parses `scope.name` per the registry specification (3.6): a scope of letters, digits and
    /// single inner hyphens, at most 39; a name of letters, digits and single inner `-` or `_`, at most 100.
    package static func parse(id: String, registry: String) -> SwiftRegistryPackage? {
        guard let dot = id.firstIndex(of: ".") else { return nil }
        let scope = String(id[..<dot]), name = String(id[id.index(after: dot)...])
        guard scope.range(of: #"^[a-zA-Z0-9](?:[a-zA-Z0-9]|-(?=[a-zA-Z0-9])){0,38}$"#, options: .regularExpression) != nil,
              name.range(of: #"^[a-zA-Z0-9](?:[a-zA-Z0-9]|[-_](?=[a-zA-Z0-9])){0,99}$"#, options: .regularExpression) != nil
        else { return nil }
        var base = registry
        while base.hasSuffix("/") { base.removeLast() }
        return SwiftRegistryPackage(registry: base, scope: scope, name: name)
    }
}

/// A registry's answer that stops the publication, with what to do.
package struct SwiftRegistryFailure: ReportableError {
    package var message: String
    package var suggestion: String?
    package var status: Int
    package var info: [(key: String, value: String)] { [("status", "\(status)")] }
}

/// The calls of the Swift package registry service specification (SwiftPM's
/// `Documentation/PackageRegistry/Registry.md`) that publishing needs: fetch a release's
/// information (4.2) and create a release (4.6), synchronously or asynchronously.
package struct SwiftRegistryClient: Sendable {
    package var package: SwiftRegistryPackage
    package var transport: HTTPTransport
    /// `Authorization`'s value: from `SWIFTPM_REGISTRY_TOKEN` (Bearer), or
    /// `SWIFTPM_REGISTRY_LOGIN` and `SWIFTPM_REGISTRY_PASSWORD` (Basic), as SwiftPM reads them.
    package var authorization: String?
    /// Waits between polls of an asynchronous publication.
    package var sleep: @Sendable (Double) async throws -> Void = { try await Task.sleep(nanoseconds: UInt64($0 * 1_000_000_000)) }

    static let jsonAccept = "application/vnd.swift.registry.v1+json"

    /// The credentials of an environment, and the values to keep out of every output.
    /// With none of them set, the registry host's login in `~/.netrc` (`NETRC`), as SwiftPM reads it.
    package static func authorization(from variables: [String: String], host: String? = nil) -> (header: String?, secrets: [String]) {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        func basic(_ login: String, _ password: String) -> (header: String?, secrets: [String]) {
            let basic = Data("\(login):\(password)".utf8).base64EncodedString()
            return ("Basic \(basic)", [password, basic])
        }
        if let token = value("SWIFTPM_REGISTRY_TOKEN") { return ("Bearer \(token)", [token]) }
        if let login = value("SWIFTPM_REGISTRY_LOGIN"), let password = value("SWIFTPM_REGISTRY_PASSWORD") { return basic(login, password) }
        if let host, let login = Netrc.load(from: variables)?.login(for: host) { return basic(login.login, login.password) }
        return (nil, [])
    }

    // MARK: - Releases

    /// What the registry holds at a version.
    package enum ReleaseState: Sendable, Equatable {
        /// No such release (404 or 410).
        case absent
        /// Published; the `source-archive` resource's checksum, when it names one.
        case published(checksum: String?)
    }

    /// The release at `version` (4.2) and its `source-archive` resource's checksum.
    /// - Throws: `SwiftRegistryFailure` for any answer but 200, 404 and 410.
    package func release(_ version: String) async throws -> ReleaseState {
        let response = try await send(.get, package.releaseURL(version))
        if response.status == 404 || response.status == 410 { return .absent }
        guard response.status == 200 else { throw failure(response, doing: "read \(package.id) \(version)") }
        guard let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else {
            throw SwiftRegistryFailure(message: "\(package.releaseURL(version)) did not answer with a JSON release (Registry.md 4.2)",
                                       suggestion: "check that the URL is the registry's root", status: response.status)
        }
        let resources = json["resources"] as? [[String: Any]] ?? []
        let archive = resources.first { $0["name"] as? String == "source-archive" }
        return .published(checksum: archive?["checksum"] as? String)
    }

    /// Creates the release (4.6): the archive, its signature and the metadata as
    /// `multipart/form-data`, the archive streamed from disk. Waits for an asynchronous
    /// publication (202) by polling the status location it names, at most `maxWait` seconds.
    /// - Returns: the release's location when the registry gave one.
    /// - Throws: `SwiftRegistryFailure` (409 included: the caller compares checksums).
    package func publish(_ version: String, archive: String, metadata: Data?, signature: Data?, signatureFormat: String?,
                         metadataSignature: Data? = nil, maxWait: Double = 900) async throws -> String? {
        let boundary = "shiplane-" + UUID().uuidString
        let prefix = "--\(boundary)\r\nContent-Disposition: form-data; name=\"source-archive\"\r\nContent-Type: application/zip\r\nContent-Transfer-Encoding: binary\r\n\r\n"
        var suffix = Data()
        func part(_ name: String, _ type: String, _ bytes: Data) {
            suffix.append(Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\nContent-Transfer-Encoding: binary\r\n\r\n".utf8))
            suffix.append(bytes)
        }
        if let signature { part("source-archive-signature", "application/octet-stream", signature) }
        if let metadata { part("metadata", "application/json", metadata) }
        if metadata != nil, let metadataSignature { part("metadata-signature", "application/octet-stream", metadataSignature) }
        suffix.append(Data("\r\n--\(boundary)--\r\n".utf8))
        var headers: [(name: String, value: String)] = [("Content-Type", "multipart/form-data;boundary=\"\(boundary)\"")]
        if signature != nil, let signatureFormat { headers.append(("X-Swift-Package-Signature-Format", signatureFormat)) }
        let response = try await send(.put, package.releaseURL(version), headers: headers,
                                      body: .wrappedFile(prefix: Array(prefix.utf8), path: archive, suffix: Array(suffix)), timeout: 3600)
        switch response.status {
        case 200, 201:
            return response.header("location")
        case 202:
            guard let location = response.header("location") else {
                throw SwiftRegistryFailure(message: "the registry accepted \(package.id) \(version) for processing (202) but named no Location to follow (Registry.md 4.6.3.2)",
                                           suggestion: "ask the registry's operators whether the release was published", status: 202)
            }
            return try await follow(location, version: version, first: response, maxWait: maxWait)
        default:
            throw failure(response, doing: "publish \(package.id) \(version)")
        }
    }

    /// The manifests at the root of the published source archive (4.4), by name; nil when the
    /// registry serves no archive at `version`. The archive is downloaded into `folder` (the
    /// step's own scratch folder, removed with it).
    package func publishedManifests(_ version: String, in folder: String) async throws -> [String: Data]? {
        // Written to the file as it arrives, never whole in memory.
        let file = folder + "/published-\(UUID().uuidString).zip"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let response = try await send(.get, package.releaseURL(version) + ".zip", accept: "application/vnd.swift.registry.v1+zip", timeout: 600,
                                      responseFile: file)
        if response.status == 404 || response.status == 410 { return nil }
        guard response.status == 200 else { throw failure(response, doing: "download \(package.id) \(version)'s source archive") }
        var manifests: [String: Data] = [:]
        for path in (try? ZipEntries.paths(in: file)) ?? [] {
            let parts = path.split(separator: "/")
            guard parts.count == 2, SwiftSourceArchive.isManifest(String(parts[1])) else { continue }
            manifests[String(parts[1])] = try? ZipEntries.contents(of: path, in: file)
        }
        return manifests
    }

    /// Polls an asynchronous publication's status until it ends (301 to the release, or a 4xx).
    private func follow(_ location: String, version: String, first: HTTPResponse, maxWait: Double) async throws -> String? {
        let url = location.hasPrefix("http") ? location : package.registry + (location.hasPrefix("/") ? "" : "/") + location
        var waited = 0.0
        var last = first
        while true {
            let wait = min(max(last.header("retry-after").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? 2, 0.2), 60)
            guard waited + wait <= maxWait else {
                throw SwiftRegistryFailure(message: "\(package.id) \(version) was still being processed by the registry after \(Int(waited)) s (\(url))",
                                           suggestion: "run the lane again later: a re-run finds the release once the registry has published it", status: 202)
            }
            try await sleep(wait)
            waited += wait
            last = try await send(.get, url)
            switch last.status {
            case 202: continue
            case 200, 201, 301, 303: return last.header("location") ?? package.releaseURL(version)
            default: throw failure(last, doing: "publish \(package.id) \(version) (the registry's processing ended)")
            }
        }
    }

    // MARK: - Plumbing

    private func send(_ method: HTTPRequestMethod, _ url: String, headers: [(name: String, value: String)] = [],
                      accept: String = jsonAccept, body: HTTPRequestBody = .none, timeout: Double = 60,
                      responseFile: String? = nil) async throws -> HTTPResponse {
        let all = [("Accept", accept)] + headers + (authorization.map { [("Authorization", $0)] } ?? [])
        var request = HTTPRequest(method: method, url: url, headers: all, body: body, timeout: timeout)
        request.responseFile = responseFile
        return try await transport.send(request)
    }

    /// The problem details object's `detail` (RFC 7807), or the body's start.
    private func failure(_ response: HTTPResponse, doing what: String) -> SwiftRegistryFailure {
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        var message = "cannot \(what): HTTP \(response.status)"
        if let detail = (json?["detail"] as? String) ?? (json?["title"] as? String) {
            message += " (\(transport.redactor.redact(detail)))"
        } else if !response.body.isEmpty {
            message += ": " + transport.redactor.redact(response.bodySnippet())
        }
        let suggestion: String? = switch response.status {
        case 401: "the registry wants credentials: set SWIFTPM_REGISTRY_TOKEN, or SWIFTPM_REGISTRY_LOGIN and SWIFTPM_REGISTRY_PASSWORD"
        case 403: "the credentials may not publish to the scope \(package.scope): grant them access in the registry"
        case 404: "check the registry's URL (its root, where /{scope}/{name} is served)"
        case 405: "this registry does not take publications (Registry.md 4.6: publishing is optional)"
        case 409: "the registry holds this version already, or is still processing an earlier publication of it"
        case 413, 422: "the registry refused the release: fix what it says and publish a new version"
        case 415: "the registry does not speak version 1 of the registry API"
        default: nil
        }
        return SwiftRegistryFailure(message: message, suggestion: suggestion, status: response.status)
    }
}
