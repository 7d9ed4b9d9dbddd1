import Foundation
internal import Crypto

/// Where objects go: an S3-compatible endpoint, a region, a bucket, and how a bucket is addressed.
package struct S3Target: Codable, Sendable, Equatable {
    /// `https://s3.REGION.amazonaws.com`, or a compatible service's (MinIO, R2, Spaces).
    package var endpoint: String
    package var region: String
    package var bucket: String
    /// `endpoint/bucket/key` (MinIO, a local server) instead of `bucket.host/key`.
    package var pathStyle: Bool

    /// The URL of `key` (nil: the bucket), encoded as S3 signs it.
    func url(key: String?, query: String? = nil) -> String {
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        var path = ""
        var origin = base
        if pathStyle {
            path = "/" + SignatureV4.encode(bucket)
        } else if let scheme = base.range(of: "://") {
            origin = String(base[..<scheme.upperBound]) + bucket + "." + String(base[scheme.upperBound...])
        }
        if let key { path += "/" + SignatureV4.encode(key, keepSlash: true) } else if path.isEmpty { path = "/" }
        return origin + path + (query.map { "?" + $0 } ?? "")
    }

    /// `s3://bucket/key`, as messages name an object.
    func display(_ key: String) -> String { "s3://\(bucket)/\(key)" }
}

/// An S3 answer that is not a success: status, S3's error code and message.
package struct S3Failure: ReportableError {
    package var message: String
    package var suggestion: String?
    package var status: Int
    package var code: String?
}

/// The S3 REST calls a release needs, each signed with Signature Version 4.
package struct S3Client: Sendable {
    package var target: S3Target
    package var signer: SignatureV4
    package var transport: HTTPTransport
    package var now: @Sendable () -> Date

    /// What HEAD says of an object.
    package struct ObjectHead: Sendable {
        package var etag: String
        package var size: Int64
        package var sha256: String?
    }

    // MARK: - Calls

    /// Checks that the bucket exists and the credentials may reach it.
    /// - Throws: `S3Failure` saying which (403: credentials; 404: no bucket).
    package func checkBucket() async throws {
        let response = try await send(.head, key: nil)
        guard !response.isSuccess else { return }
        // A HEAD answer has no body, so no error code: ask again with GET for S3's reason.
        let explained = try await send(.get, key: nil, query: "location=")
        throw failure(explained.isSuccess ? response : explained, doing: "reach the bucket \(target.bucket) at \(target.endpoint)")
    }

    /// The object's ETag, size and the SHA-256 Shiplane stored with it; nil when there is none.
    package func head(_ key: String) async throws -> ObjectHead? {
        let response = try await send(.head, key: key)
        if response.status == 404 { return nil }
        guard response.isSuccess else { throw failure(response, doing: "read \(target.display(key))") }
        return ObjectHead(etag: response.header("etag") ?? "", size: Int64(response.header("content-length") ?? "") ?? -1,
                          sha256: response.header("x-amz-meta-sha256"))
    }

    /// Puts a file in one request, its SHA-256 and MD5 checked by the server; returns the ETag.
    package func put(_ key: String, file: String, digests: FileDigests, acl: String) async throws -> String {
        let headers = objectHeaders(digests: digests, acl: acl) + [
            ("Content-MD5", Data(digests.md5).base64EncodedString()),
            ("x-amz-checksum-sha256", Data(digests.sha256).base64EncodedString()),
        ]
        let response = try await send(.put, key: key, headers: headers, body: .file(path: file), payloadHash: SignatureV4.hex(digests.sha256))
        guard response.isSuccess else { throw failure(response, doing: "put \(target.display(key))") }
        return response.header("etag") ?? ""
    }

    /// Puts `bytes` in one request (its SHA-256 and MD5 checked by the server, the SHA-256 kept as
    /// `x-amz-meta-sha256`); returns the ETag.
    package func put(_ key: String, bytes: [UInt8], acl: String = "private") async throws -> String {
        let response = try await putBytes(key, bytes: bytes, acl: acl, conditions: [])
        guard response.isSuccess else { throw failure(response, doing: "put \(target.display(key))") }
        return response.header("etag") ?? ""
    }

    /// Puts `bytes` only while the object still has `etag` (`If-Match`), or, with nil, only while
    /// there is none (`If-None-Match: *`): S3's conditional write, checked by the server in the
    /// same request. Returns the new ETag, or nil when S3 answers 412 (someone wrote it meanwhile).
    package func put(_ key: String, bytes: [UInt8], ifUnchangedFrom etag: String?) async throws -> String? {
        let condition = etag.map { ("If-Match", $0) } ?? ("If-None-Match", "*")
        let response = try await putBytes(key, bytes: bytes, acl: "private", conditions: [condition])
        if response.status == 412 { return nil }
        guard response.isSuccess else { throw failure(response, doing: "put \(target.display(key))") }
        return response.header("etag") ?? ""
    }

    private func putBytes(_ key: String, bytes: [UInt8], acl: String, conditions: [(name: String, value: String)]) async throws -> HTTPResponse {
        let sha = Array(Crypto.SHA256.hash(data: bytes))
        let digests = FileDigests(name: (key as NSString).lastPathComponent, size: Int64(bytes.count), sha256: sha,
                                  md5: Array(Insecure.MD5.hash(data: bytes)))
        let headers = objectHeaders(digests: digests, acl: acl) + [
            ("Content-MD5", Data(digests.md5).base64EncodedString()),
            ("x-amz-checksum-sha256", Data(sha).base64EncodedString()),
        ] + conditions
        return try await send(.put, key: key, headers: headers, body: .bytes(bytes), payloadHash: SignatureV4.hex(sha))
    }

    /// An object's bytes and ETag (GetObject); nil when there is none.
    package func get(_ key: String) async throws -> (bytes: [UInt8], etag: String)? {
        let response = try await send(.get, key: key)
        if response.status == 404, Self.element("Code", in: response.text) != "NoSuchBucket" { return nil }
        guard response.isSuccess else { throw failure(response, doing: "read \(target.display(key))") }
        return (response.body, response.header("etag") ?? "")
    }

    /// An object as ListObjectsV2 lists it.
    package struct ListedObject: Sendable, Equatable {
        package var key: String
        package var etag: String
        package var size: Int64
    }

    /// Every object whose key starts with `prefix` (ListObjectsV2, page after page through its
    /// continuation tokens), in S3's order (by key). `maxKeys` sets the page size (S3's default: 1,000).
    package func list(prefix: String, maxKeys: Int? = nil) async throws -> [ListedObject] {
        var found: [ListedObject] = []
        var token: String?
        var seen = Set<String>()
        while true {
            var query = "list-type=2&prefix=\(SignatureV4.encode(prefix))"
            if let maxKeys { query += "&max-keys=\(maxKeys)" }
            if let token { query += "&continuation-token=\(SignatureV4.encode(token))" }
            let response = try await send(.get, key: nil, query: query)
            guard response.isSuccess else { throw failure(response, doing: "list \(target.display(prefix))") }
            let page = Self.listPage(response.text)
            found += page.objects
            guard page.truncated else { return found }
            // A truncated page names the next one; one without a token (or a token seen before) would loop.
            guard let next = page.next, !next.isEmpty, seen.insert(next).inserted else {
                throw ShiplaneError("\(target.endpoint) answered a truncated listing of \(target.display(prefix)) without a new continuation token",
                                    suggestion: "check that the endpoint is S3-compatible (ListObjectsV2); nothing was changed")
            }
            token = next
        }
    }

    /// One ListObjectsV2 answer: its objects, whether more follow and the token of the next page.
    static func listPage(_ xml: String) -> (objects: [ListedObject], truncated: Bool, next: String?) {
        let objects = elements("Contents", in: xml).compactMap { item -> ListedObject? in
            guard let key = element("Key", in: item) else { return nil }
            return ListedObject(key: key, etag: element("ETag", in: item) ?? "", size: element("Size", in: item).flatMap(Int64.init) ?? -1)
        }
        return (objects, element("IsTruncated", in: xml) == "true", element("NextContinuationToken", in: xml))
    }

    /// Starts a multipart upload; returns its upload id.
    package func createMultipartUpload(_ key: String, digests: FileDigests, acl: String) async throws -> String {
        var request = try await signed(.post, key: key, query: "uploads=", headers: objectHeaders(digests: digests, acl: acl))
        request.isRepeatable = false
        let response = try await transport.send(request)
        guard response.isSuccess, let id = Self.element("UploadId", in: response.text) else {
            throw failure(response, doing: "start a multipart upload of \(target.display(key))")
        }
        return id
    }

    /// Sends one part (bytes `offset..<offset+length` of `file`), MD5 and SHA-256 checked by the server; returns its ETag.
    package func uploadPart(_ key: String, uploadID: String, number: Int, file: String, offset: Int64, length: Int64,
                            md5: [UInt8], sha256: [UInt8]) async throws -> String {
        let response = try await send(.put, key: key, query: "partNumber=\(number)&uploadId=\(SignatureV4.encode(uploadID))",
                                      headers: [("Content-MD5", Data(md5).base64EncodedString())],
                                      body: .fileSlice(path: file, offset: offset, length: length), payloadHash: SignatureV4.hex(sha256))
        guard response.isSuccess else { throw failure(response, doing: "upload part \(number) of \(target.display(key))") }
        return response.header("etag") ?? ""
    }

    /// The parts the server holds of an upload, by number, with their ETags; nil when the upload is gone.
    package func listParts(_ key: String, uploadID: String) async throws -> [Int: String]? {
        var parts: [Int: String] = [:]
        var marker = 0
        while true {
            let response = try await send(.get, key: key, query: "part-number-marker=\(marker)&uploadId=\(SignatureV4.encode(uploadID))")
            if response.status == 404 { return nil }
            guard response.isSuccess else { throw failure(response, doing: "list the parts of \(target.display(key))") }
            for part in Self.elements("Part", in: response.text) {
                if let number = Self.element("PartNumber", in: part).flatMap(Int.init), let etag = Self.element("ETag", in: part) {
                    parts[number] = etag
                }
            }
            guard Self.element("IsTruncated", in: response.text) == "true",
                  let next = Self.element("NextPartNumberMarker", in: response.text).flatMap(Int.init), next > marker else { return parts }
            marker = next
        }
    }

    /// The ids of the multipart uploads open for exactly `key` (ListMultipartUploads by prefix,
    /// page after page), oldest first as S3 lists them.
    package func openUploads(_ key: String) async throws -> [String] {
        var ids: [String] = []
        var markers: (key: String, upload: String)?
        while true {
            var query = "prefix=\(SignatureV4.encode(key))&uploads="
            if let markers {
                query = "key-marker=\(SignatureV4.encode(markers.key))&prefix=\(SignatureV4.encode(key))&upload-id-marker=\(SignatureV4.encode(markers.upload))&uploads="
            }
            let response = try await send(.get, key: nil, query: query)
            guard response.isSuccess else { throw failure(response, doing: "list the multipart uploads of \(target.display(key))") }
            for upload in Self.elements("Upload", in: response.text) where Self.element("Key", in: upload) == key {
                if let id = Self.element("UploadId", in: upload) { ids.append(id) }
            }
            guard Self.element("IsTruncated", in: response.text) == "true",
                  let nextKey = Self.element("NextKeyMarker", in: response.text),
                  let nextUpload = Self.element("NextUploadIdMarker", in: response.text),
                  markers.map({ $0.key != nextKey || $0.upload != nextUpload }) ?? true else { return ids }
            markers = (nextKey, nextUpload)
        }
    }

    /// Joins the parts into the object; returns its ETag.
    package func completeMultipartUpload(_ key: String, uploadID: String, parts: [(number: Int, etag: String)]) async throws -> String {
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts {
            xml += "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(Self.escape(part.etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let body = Array(xml.utf8)
        let response = try await send(.post, key: key, query: "uploadId=\(SignatureV4.encode(uploadID))",
                                      headers: [("Content-Type", "application/xml")], body: .bytes(body),
                                      payloadHash: SignatureV4.hex(Crypto.SHA256.hash(data: body)))
        // S3 may answer 200 with an error in the body once it has started combining the parts.
        guard response.isSuccess, !response.text.contains("<Error>") else {
            throw failure(response, doing: "complete the multipart upload of \(target.display(key))")
        }
        return Self.element("ETag", in: response.text) ?? ""
    }

    /// Aborts an upload and frees its parts; an upload already gone is fine.
    package func abortMultipartUpload(_ key: String, uploadID: String) async throws {
        let response = try await send(.delete, key: key, query: "uploadId=\(SignatureV4.encode(uploadID))")
        guard response.isSuccess || response.status == 404 else { throw failure(response, doing: "abort the upload of \(target.display(key))") }
    }

    /// Deletes the object only while it still has `etag` (If-Match): what someone put since stays.
    package func delete(_ key: String, ifMatch etag: String) async throws {
        let response = try await send(.delete, key: key, headers: [("If-Match", etag)])
        guard response.isSuccess || response.status == 404 else { throw failure(response, doing: "delete \(target.display(key))") }
    }

    // MARK: - Requests

    private func objectHeaders(digests: FileDigests, acl: String) -> [(name: String, value: String)] {
        [("x-amz-acl", acl), ("x-amz-meta-sha256", SignatureV4.hex(digests.sha256)),
         ("Content-Type", ContentType.forFileName(digests.name))]
    }

    private func signed(_ method: HTTPRequestMethod, key: String?, query: String? = nil, headers: [(name: String, value: String)] = [],
                        body: HTTPRequestBody = .none, payloadHash: String? = nil) async throws -> HTTPRequest {
        let url = target.url(key: key, query: query)
        guard let components = URLComponents(string: url) else {
            throw ShiplaneError("\(url) is not a URL", suggestion: "check the endpoint and the bucket's name")
        }
        let hash = payloadHash ?? SignatureV4.hex(Crypto.SHA256.hash(data: [UInt8]()))
        let signature = signer.sign(method: method.rawValue, url: components, headers: headers, payloadHash: hash, date: now())
        return HTTPRequest(method: method, url: url, headers: headers + signature, body: body, timeout: body.isFile ? 3600 : 60)
    }

    private func send(_ method: HTTPRequestMethod, key: String?, query: String? = nil, headers: [(name: String, value: String)] = [],
                      body: HTTPRequestBody = .none, payloadHash: String? = nil) async throws -> HTTPResponse {
        try await transport.send(try await signed(method, key: key, query: query, headers: headers, body: body, payloadHash: payloadHash))
    }

    private func failure(_ response: HTTPResponse, doing what: String) -> S3Failure {
        let code = Self.element("Code", in: response.text)
        let said = Self.element("Message", in: response.text)
        var message = "cannot \(what): HTTP \(response.status)"
        if let code { message += " \(code)" }
        if let said { message += ": \(said)" }
        let suggestion: String? = switch (response.status, code) {
        case (_, "SignatureDoesNotMatch"?):
            "AWS_SECRET_ACCESS_KEY does not belong to AWS_ACCESS_KEY_ID (or the region is wrong): set the pair the bucket's account issued"
        case (_, "InvalidAccessKeyId"?), (_, "InvalidToken"?), (_, "ExpiredToken"?):
            "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials) to valid credentials"
        case (403, _): "the credentials may not write to this bucket: grant s3:PutObject (and s3:GetObject, s3:DeleteObject) on it"
        case (404, _), (_, "NoSuchBucket"?): "check the bucket's name, the endpoint and the region (custom endpoints often need pathStyle: true)"
        case (301, _), (_, "PermanentRedirect"?): "the bucket is in another region: pass its region"
        default: nil
        }
        return S3Failure(message: message, suggestion: suggestion, status: response.status, code: code)
    }

    // MARK: - XML

    /// The text of the first `<name>` element (entities decoded), or nil.
    static func element(_ name: String, in xml: String) -> String? {
        elements(name, in: xml).first.map(unescape)
    }

    static func elements(_ name: String, in xml: String) -> [String] {
        var found: [String] = []
        var rest = xml[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// A file's SHA-256 and MD5, read once.
package struct FileDigests: Sendable {
    package var name: String
    package var size: Int64
    package var sha256: [UInt8]
    package var md5: [UInt8]

    /// Reads `path` once for both digests.
    static func read(_ path: String) throws -> FileDigests {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ShiplaneError("cannot read \(path)", suggestion: "build the file before uploading it")
        }
        defer { try? handle.close() }
        var sha = Crypto.SHA256()
        var md5 = Insecure.MD5()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            sha.update(data: chunk)
            md5.update(data: chunk)
            size += Int64(chunk.count)
        }
        return FileDigests(name: (path as NSString).lastPathComponent, size: size, sha256: Array(sha.finalize()), md5: Array(md5.finalize()))
    }

    /// The MD5 and SHA-256 of `length` bytes of `path` from `offset` (one part).
    static func slice(_ path: String, offset: Int64, length: Int64) throws -> (md5: [UInt8], sha256: [UInt8]) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ShiplaneError("cannot read \(path)") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        var sha = Crypto.SHA256()
        var md5 = Insecure.MD5()
        var left = length
        while left > 0, let chunk = try handle.read(upToCount: Int(min(left, 1 << 20))), !chunk.isEmpty {
            sha.update(data: chunk)
            md5.update(data: chunk)
            left -= Int64(chunk.count)
        }
        return (Array(md5.finalize()), Array(sha.finalize()))
    }
}

extension HTTPRequestBody {
    var isFile: Bool {
        switch self {
        case .none, .bytes: false
        default: true
        }
    }
}
