import Foundation

/// A forge release's files, downloaded for `shiplane verify URL`: the release is found by its
/// web address (a GitHub or Gitea/Forgejo release page, or the repository's address and a tag),
/// every file attached to it is downloaded into a folder, and the tag's commit is read from the
/// forge, for the provenance's source check.
package struct ReleaseDownload {
    /// The forges whose releases can be downloaded.
    package enum Forge: String, CaseIterable, Sendable {
        case github, gitea, gitlab

        package var name: String {
            switch self {
            case .github: "GitHub"
            case .gitea: "Gitea"
            case .gitlab: "GitLab"
            }
        }
    }

    /// What a release address names.
    package struct Target: Equatable, Sendable {
        package var forge: Forge
        /// The API base without a trailing slash (`https://api.github.com`, `https://HOST/api/v1`).
        package var apiBase: String
        /// The owner, or on GitLab the project's namespace (`group/subgroup`).
        package var owner: String
        package var repository: String
        package var tag: String
    }

    /// What was downloaded.
    package struct Downloaded: Sendable {
        package var target: Target
        /// The files' names, in the release's order.
        package var files: [String]
        /// The commit the tag points at, as the forge says.
        package var commit: String?
    }

    /// Reads a release address: `https://github.com/OWNER/REPO/releases/tag/TAG`, a Gitea or
    /// Forgejo `https://HOST/OWNER/REPO/releases/tag/TAG`, a GitLab
    /// `https://HOST/GROUP[/SUBGROUP]/PROJECT/-/releases/TAG` (any host; API `https://HOST/api/v4`),
    /// or `https://HOST/OWNER/REPO` with `tag`.
    /// `forge` is needed for a host other than github.com (GitHub Enterprise or Gitea); the API
    /// base is `GITHUB_API_URL` (else `https://api.github.com` for github.com and
    /// `https://HOST/api/v3` for GitHub Enterprise) or `https://HOST/api/v1` for Gitea.
    /// - Throws: `SigningError` (usage) for an address that names no release.
    package static func target(address: String, tag: String?, forge: Forge?, environment: [String: String]) throws -> Target {
        guard let components = URLComponents(string: address), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty else {
            throw SigningError("\(address) is neither a folder nor a release's address",
                               suggestion: "give the folder the files were downloaded to, or a release page such as https://github.com/OWNER/REPO/releases/tag/v1.2.0",
                               category: .usage)
        }
        var parts = components.path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        var named: String?
        var forge = forge
        if let dash = parts.firstIndex(of: "-") {
            // GitLab: https://HOST/GROUP[/SUBGROUP...]/PROJECT/-/releases/TAG (the namespace may be nested).
            guard forge == nil || forge == .gitlab, dash >= 2, parts.count == dash + 3, parts[dash + 1] == "releases", !parts[dash + 2].isEmpty else {
                throw SigningError("\(address) names no GitLab release (expected https://HOST/GROUP/PROJECT/-/releases/TAG)", category: .usage)
            }
            named = parts[dash + 2]
            parts = Array(parts.prefix(dash))
            forge = .gitlab
        } else if parts.count == 5, parts[2] == "releases", parts[3] == "tag" {
            named = parts[4]
            parts = Array(parts.prefix(2))
        } else if forge == .gitlab || (forge == nil && host.lowercased() == "gitlab.com"), parts.count >= 2 {
            forge = .gitlab
        }
        if forge == .gitlab {
            parts = [parts.dropLast().joined(separator: "/"), parts.last ?? ""]
        }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw SigningError("\(address) names no repository or release (expected https://HOST/OWNER/REPO/releases/tag/TAG, or https://HOST/OWNER/REPO with --tag)",
                               category: .usage)
        }
        if let named, let tag, named != tag {
            throw SigningError("the address names the release \(named), --tag names \(tag)", suggestion: "give one of them", category: .usage)
        }
        guard let chosenTag = named ?? tag, !chosenTag.isEmpty else {
            throw SigningError("\(address) names a repository but no release", suggestion: "add --tag TAG, or give the release's page", category: .usage)
        }
        let isGitHubDotCom = host.lowercased() == "github.com"
        guard let forge = forge ?? (isGitHubDotCom ? .github : nil) else {
            throw SigningError("cannot tell which forge \(host) is (GitHub Enterprise and Gitea write releases at the same addresses)",
                               suggestion: "add --forge github, --forge gitea or --forge gitlab", category: .usage)
        }
        let server = "\(scheme)://\(host)\(components.port.map { ":\($0)" } ?? "")"
        var base: String
        switch forge {
        case .github:
            let configured = environment["GITHUB_API_URL"]?.trimmingCharacters(in: .whitespaces) ?? ""
            base = !configured.isEmpty ? configured : isGitHubDotCom ? "https://api.github.com" : server + "/api/v3"
        case .gitea:
            base = server + "/api/v1"
        case .gitlab:
            base = server + "/api/v4"
        }
        while base.hasSuffix("/") { base.removeLast() }
        return Target(forge: forge, apiBase: base, owner: parts[0], repository: parts[1], tag: chosenTag)
    }

    private struct GitHubReleaseDocument: Decodable {
        struct Asset: Decodable {
            var name: String
            /// The asset's API address, which answers its bytes with `Accept: application/octet-stream`.
            var url: String
            var browser_download_url: String
            var size: Int64?
            var digest: String?
        }
        var assets: [Asset]
    }

    private struct GiteaReleaseDocument: Decodable {
        struct Asset: Decodable {
            var name: String
            var browser_download_url: String
            var size: Int64?
        }
        var assets: [Asset]
    }

    private struct GitLabLink: Decodable {
        var name: String
        var url: String
        var direct_asset_url: String?
    }

    private struct GitLabTagDocument: Decodable {
        struct Commit: Decodable { var id: String }
        var commit: Commit?
    }

    private struct CommitDocument: Decodable { var sha: String }
    private struct GiteaTagDocument: Decodable { var commit: CommitDocument? }

    /// The largest file `download` takes unless told otherwise: 4 GiB.
    package static let defaultMaxFileBytes: Int64 = 4 << 30

    /// One file of a release: its name, where it is, GitLab's permalink to it, and its size where
    /// the forge gives one.
    private struct Asset {
        var name: String
        var url: String
        var permalink: String?
        var size: Int64?
    }

    /// Downloads every file of the release into `folder` (which must exist and be empty), and
    /// reads the tag's commit. The forge's token (`GITHUB_TOKEN`/`GH_TOKEN`,
    /// `GITEA_TOKEN`/`FORGEJO_TOKEN`, `GITLAB_TOKEN`/`CI_JOB_TOKEN`) goes with every request to the
    /// forge's own scheme, host and port, and never to another one, a redirect's included (every
    /// download follows its redirects in `fetch`):
    /// - GitHub: with a token, each asset is fetched from its API address with `Accept:
    ///   application/octet-stream` (as a private repository's assets must be), which redirects to a
    ///   storage host; without one, from its `browser_download_url`.
    /// - Gitea/Forgejo: the attachment's `browser_download_url` (`/attachments/UUID`, a web route
    ///   that takes the API's token) on the server itself, which may redirect to its storage.
    /// - GitLab: the release's links (read from the paged links list); a link on the GitLab server
    ///   itself (a generic package, an upload, the link's permalink, which is preferred) gets the
    ///   token; a link on another host does not.
    /// No file may be larger than `maxFileBytes`.
    /// - Throws: `SigningError` naming the release and what is wrong: no such release, a release
    ///   with no files, a download that fails, is too large, or whose size differs from the
    ///   release's, a link whose file is gone (each naming the file or link).
    package static func download(_ target: Target, into folder: String, environment: [String: String], transport: HTTPTransport,
                                 maxFileBytes: Int64 = defaultMaxFileBytes) async throws -> Downloaded {
        let tokenNames = switch target.forge {
        case .github: ["GITHUB_TOKEN", "GH_TOKEN"]
        case .gitea: ["GITEA_TOKEN", "FORGEJO_TOKEN"]
        case .gitlab: ["GITLAB_TOKEN", "CI_JOB_TOKEN"]
        }
        let token = tokenNames.lazy.compactMap { environment[$0]?.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty }
        var transport = transport
        if let token { transport.redactor = transport.redactor.adding([token]) }
        let shown = "\(target.owner)/\(target.repository) \(target.tag) on \(target.forge.name)"
        let encode = { (text: String) in URITemplate.percentEncode(text, allowReserved: false) }
        // GitLab names the project by its whole path, URL-encoded as one segment.
        let repo = target.forge == .gitlab ? "\(target.apiBase)/projects/\(encode(target.owner + "/" + target.repository))"
            : "\(target.apiBase)/repos/\(encode(target.owner))/\(encode(target.repository))"
        let jobToken = target.forge == .gitlab && (environment["GITLAB_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "").isEmpty
        func authorization() -> (name: String, value: String)? {
            guard let token else { return nil }
            switch target.forge {
            case .github: return ("Authorization", "Bearer \(token)")
            case .gitea: return ("Authorization", "token \(token)")
            case .gitlab: return (jobToken ? "JOB-TOKEN" : "PRIVATE-TOKEN", token)
            }
        }
        func api(_ url: String) -> HTTPRequest {
            var headers: [(name: String, value: String)] = [("Accept", target.forge == .github ? "application/vnd.github+json" : "application/json"),
                                                            ("User-Agent", "shiplane")]
            if target.forge == .github { headers.append(("X-GitHub-Api-Version", "2022-11-28")) }
            if let field = authorization() { headers.append(field) }
            return HTTPRequest(method: .get, url: url, headers: headers)
        }
        func failure(_ response: HTTPResponse, _ what: String) -> SigningError {
            let hint = response.status == 404 ? "check the address and the tag (a draft is not found without a token that can see it)"
                : response.status == 401 || response.status == 403 ? "set \(tokenNames[0]) to a token that can read the repository" : nil
            return SigningError("\(target.forge.name) answered HTTP \(response.status) for \(what) of \(shown)", suggestion: hint, category: .failure)
        }
        func notADocument(_ what: String, _ error: any Error) -> SigningError {
            SigningError("\(target.forge.name)'s answer for \(what) \(shown) is not what GitLab's API documents: \(error)", category: .failure)
        }

        let releasePath = target.forge == .gitlab ? "\(repo)/releases/\(encode(target.tag))" : "\(repo)/releases/tags/\(encode(target.tag))"
        let releaseResponse = try await transport.send(api(releasePath))
        guard releaseResponse.isSuccess else { throw failure(releaseResponse, "the release") }
        var assets: [Asset] = []
        do {
            switch target.forge {
            case .github:
                // A private repository's assets come only from the API address, with the token.
                assets = try JSONDecoder().decode(GitHubReleaseDocument.self, from: Data(releaseResponse.body)).assets
                    .map { Asset(name: $0.name, url: token == nil ? $0.browser_download_url : $0.url, size: $0.size) }
            case .gitea:
                assets = try JSONDecoder().decode(GiteaReleaseDocument.self, from: Data(releaseResponse.body)).assets
                    .map { Asset(name: $0.name, url: $0.browser_download_url, size: $0.size) }
            case .gitlab:
                // The release's links, page by page (GitLab's own source archives are not the
                // release's files); each link's permalink is preferred where GitLab gives one.
                var page = 1
                while true {
                    let response = try await transport.send(api("\(releasePath)/assets/links?per_page=100&page=\(page)"))
                    guard response.isSuccess else { throw failure(response, "the links of the release") }
                    let links: [GitLabLink]
                    do { links = try JSONDecoder().decode([GitLabLink].self, from: Data(response.body)) } catch { throw notADocument("the links of the release", error) }
                    assets += links.map { link in
                        Asset(name: link.name, url: link.url, permalink: link.direct_asset_url.flatMap { $0.isEmpty || $0 == link.url ? nil : $0 })
                    }
                    guard let next = response.header("x-next-page").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), next > page, page < 10_000 else { break }
                    page = next
                }
            }
        } catch let error as SigningError {
            throw error
        } catch {
            throw SigningError("\(target.forge.name)'s answer for the release \(shown) is not a release document: \(error)", category: .failure)
        }
        guard !assets.isEmpty else { throw SigningError("the release \(shown) has no files", category: .failure) }
        for asset in assets where asset.name.isEmpty || asset.name.contains("/") || asset.name.hasPrefix(".") {
            throw SigningError("the release \(shown) has a file named \(asset.name), which cannot be saved as a file", category: .failure)
        }
        if let twice = Dictionary(grouping: assets, by: \.name).first(where: { $0.value.count > 1 })?.key {
            throw SigningError("the release \(shown) has two files named \(twice)", category: .failure)
        }

        var files: [String] = []
        let word = target.forge == .gitlab ? "link" : "file"
        for asset in assets {
            let path = folder + "/" + asset.name
            // The token goes only to the forge's own server; on GitHub, its API asks for the
            // asset's bytes rather than its description.
            let credential = { (url: String) -> [(name: String, value: String)] in
                guard sameServer(url, target.apiBase), let field = authorization() else { return [] }
                return target.forge == .github ? [field, ("Accept", "application/octet-stream"), ("X-GitHub-Api-Version", "2022-11-28")] : [field]
            }
            let fetched: (response: HTTPResponse, from: String)
            do {
                var viaPermalink: (response: HTTPResponse, from: String)?
                if let permalink = asset.permalink {
                    let tried = try await fetch(permalink, to: path, credential: credential, server: target.apiBase, transport: transport, maxBytes: maxFileBytes)
                    // A permalink the server itself refuses (an instance that wants a browser
                    // session for it) falls back to the link's own address.
                    if tried.response.isSuccess || tried.from != permalink || ![401, 403, 404].contains(tried.response.status) { viaPermalink = tried }
                }
                if let viaPermalink { fetched = viaPermalink } else {
                    fetched = try await fetch(asset.url, to: path, credential: credential, server: target.apiBase, transport: transport, maxBytes: maxFileBytes)
                }
            } catch HTTPTransportError.responseTooLarge(_, _, let limit) {
                throw SigningError("the \(word) \(asset.name) of \(shown) (\(shownAddress(asset.url))) is larger than \(limit) bytes, the most verify downloads",
                                   suggestion: "pass --max-download-size with a larger size if the file is expected to be that large", category: .failure)
            }
            let status = fetched.response.status
            guard fetched.response.isSuccess else {
                if status == 404, token == nil, target.forge != .github, sameServer(fetched.from, target.apiBase) {
                    // Gitea answers 404, not 401, for an attachment of a repository it will not show.
                    throw SigningError("downloading the \(word) \(asset.name) of \(shown) from \(shownAddress(fetched.from)) answered HTTP 404",
                                       suggestion: "if the repository is private, set \(tokenNames[0]) to a token that can read it", category: .failure)
                }
                if status == 404 || status == 410 {
                    throw SigningError("the \(word) \(asset.name) of \(shown) points at \(shownAddress(fetched.from)), whose file is gone (HTTP \(status))",
                                       suggestion: "tell the project that the release's \(word) \(asset.name) is broken", category: .failure)
                }
                let refused = (status == 401 || status == 403) && sameServer(fetched.from, target.apiBase)
                throw SigningError("downloading the \(word) \(asset.name) of \(shown) from \(shownAddress(fetched.from)) answered HTTP \(status)",
                                   suggestion: refused ? "set \(tokenNames[0]) to a token that can read the project" : nil, category: .failure)
            }
            if let size = asset.size {
                let written = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
                guard written == size else {
                    throw SigningError("\(asset.name) of \(shown) downloaded as \(written.map(String.init) ?? "no") bytes; the release says \(size)",
                                       suggestion: "run again: the download was cut", category: .failure)
                }
            }
            files.append(asset.name)
        }

        let commitURL = switch target.forge {
        case .github: "\(repo)/commits/\(encode(target.tag))"
        case .gitea: "\(repo)/tags/\(encode(target.tag))"
        case .gitlab: "\(repo)/repository/tags/\(encode(target.tag))"
        }
        let commitResponse = try await transport.send(api(commitURL))
        guard commitResponse.isSuccess else { throw failure(commitResponse, "the tag's commit") }
        let commit: String?
        switch target.forge {
        case .github: commit = (try? JSONDecoder().decode(CommitDocument.self, from: Data(commitResponse.body)))?.sha
        case .gitea: commit = (try? JSONDecoder().decode(GiteaTagDocument.self, from: Data(commitResponse.body)))?.commit?.sha
        case .gitlab: commit = (try? JSONDecoder().decode(GitLabTagDocument.self, from: Data(commitResponse.body)))?.commit?.id
        }
        guard let commit, commit.count >= 40, commit.allSatisfy(\.isHexDigit) else {
            throw SigningError("\(target.forge.name) did not say which commit \(target.tag) of \(target.owner)/\(target.repository) is", category: .failure)
        }
        return Downloaded(target: target, files: files, commit: commit)
    }

    /// Downloads `url` into `path`, following up to 5 redirects itself so that `credential`
    /// decides for every address on the way which headers, if any, go with it. A redirect of
    /// `server` to its sign-in page is answered as a 401 from that server. Returns the last answer
    /// and the address that gave it.
    static func fetch(_ url: String, to path: String, credential: (String) -> [(name: String, value: String)], server: String,
                              transport: HTTPTransport, maxBytes: Int64) async throws -> (response: HTTPResponse, from: String) {
        var current = url
        for _ in 0...5 {
            let headers: [(name: String, value: String)] = [("User-Agent", "shiplane")] + credential(current)
            var request = HTTPRequest(method: .get, url: current, headers: headers, timeout: 3600)
            request.responseFile = path
            request.maxResponseFileBytes = maxBytes
            request.followsRedirects = false
            let response = try await transport.send(request)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("location"),
                  let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL.absoluteString,
                  let scheme = URLComponents(string: next)?.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
                return (response, current)
            }
            if sameServer(next, server), URLComponents(string: next)?.path.hasSuffix("/users/sign_in") == true {
                return (HTTPResponse(status: 401), current)
            }
            current = next
        }
        throw SigningError("\(shownAddress(url)) redirected more than 5 times", category: .failure)
    }

    /// An address as shown in a message: without its query (a storage's signed address carries
    /// its signature there) or user information.
    private static func shownAddress(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? url
    }

    /// Whether two addresses have the same scheme, host and port (a default port written or not).
    static func sameServer(_ one: String, _ other: String) -> Bool {
        guard let a = URLComponents(string: one), let b = URLComponents(string: other) else { return false }
        func port(_ components: URLComponents) -> Int? { components.port ?? (components.scheme?.lowercased() == "https" ? 443 : components.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }

    /// The attestations GitHub stores for each of `files` in `folder` (by its SHA-256:
    /// `GET /repos/{owner}/{repo}/attestations/sha256:HEX`), as Sigstore bundles; a file with
    /// none has an empty list. The token, when set, goes to the API only.
    /// - Throws: `SigningError` when GitHub refuses the token or answers something else.
    package static func gitHubAttestations(_ target: Target, files: [String], in folder: String, environment: [String: String],
                                           transport: HTTPTransport) async throws -> [(file: String, bundles: [[String: Any]])] {
        let token = ["GITHUB_TOKEN", "GH_TOKEN"].lazy.compactMap { environment[$0]?.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty }
        var transport = transport
        if let token { transport.redactor = transport.redactor.adding([token]) }
        let encode = { (text: String) in URITemplate.percentEncode(text, allowReserved: false) }
        var found: [(file: String, bundles: [[String: Any]])] = []
        for file in files {
            let digest = try SHA256.hex(ofFile: folder + "/" + file)
            var headers: [(name: String, value: String)] = [("Accept", "application/vnd.github+json"), ("User-Agent", "shiplane"), ("X-GitHub-Api-Version", "2022-11-28")]
            if let token { headers.append(("Authorization", "Bearer \(token)")) }
            let url = "\(target.apiBase)/repos/\(encode(target.owner))/\(encode(target.repository))/attestations/sha256:\(digest)?per_page=100"
            let response = try await transport.send(HTTPRequest(method: .get, url: url, headers: headers))
            if response.status == 404 {
                found.append((file, []))
                continue
            }
            guard response.isSuccess,
                  let list = ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any])?["attestations"] as? [[String: Any]] else {
                throw SigningError("GitHub answered HTTP \(response.status) for the attestations of \(file) in \(target.owner)/\(target.repository)",
                                   suggestion: response.status == 401 || response.status == 403 ? "set GITHUB_TOKEN to a token that can read the repository's attestations" : nil,
                                   category: .failure)
            }
            found.append((file, list.compactMap { $0["bundle"] as? [String: Any] }))
        }
        return found
    }
}
