import Foundation

/// An object this run put in a bucket, by one PUT or a multipart upload. Written down before the
/// first request; a multipart upload's id is written down as soon as S3 gives it, so a run killed
/// midway continues the upload when it runs again (the parts S3 holds, checked by MD5, are not sent
/// again) and a rollback aborts it.
struct S3ObjectUploaded: Effect, Equatable {
    static let kind = "s3.object"
    var target: S3Target
    var key: String
    /// Hex SHA-256 of the bytes, also stored with the object (`x-amz-meta-sha256`): an object
    /// holding other bytes is not this run's and is never deleted.
    var sha256: String
    /// The multipart upload under way; nil for a single PUT (or before S3 answered).
    var uploadID: String?
    /// The object's ETag once it exists.
    var etag: String?

    var reach: EffectReach { .publication }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try S3Client.forUndo(target: target, in: context, what: target.display(key))
        if let uploadID { try await client.abortMultipartUpload(key, uploadID: uploadID) }
        guard let head = try await client.head(key) else { return }
        guard head.sha256 == sha256, etag == nil || etag == head.etag else {
            throw ShiplaneError("\(target.display(key)) changed since this run put it (it holds other bytes now); left as it is")
        }
        // Compare-and-swap: deleted only while it still has the ETag just read.
        try await client.delete(key, ifMatch: head.etag)
    }
}

extension S3Client {
    /// The credentials of this process's environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`); with neither of the first two set and a `host` (the endpoint's), the
    /// `.netrc` login for that host (`machine HOST login KEY-ID password SECRET`, else `default`), as curl reads it.
    /// - Throws: when either of the first two is missing and `.netrc` has no login for the host, saying which.
    static func credentials(from variables: [String: String], host: String? = nil) throws -> SignatureV4.Credentials {
        var missing: [String] = []
        let id = variables["AWS_ACCESS_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 }
        let secret = variables["AWS_SECRET_ACCESS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if id == nil, secret == nil, let host, let login = Netrc.load(from: variables)?.login(for: host) {
            return SignatureV4.Credentials(accessKeyID: login.login, secretAccessKey: login.password)
        }
        if id == nil { missing.append("AWS_ACCESS_KEY_ID") }
        if secret == nil { missing.append("AWS_SECRET_ACCESS_KEY") }
        guard let id, let secret else {
            let netrc = host.map { " (or a login for \($0) in \(Netrc.path(in: variables) ?? "~/.netrc"))" } ?? ""
            throw ShiplaneError("\(missing.joined(separator: " and ")) \(missing.count == 1 ? "is" : "are") not set",
                                suggestion: "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials) in the environment or .env\(netrc)")
        }
        let token = variables["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return SignatureV4.Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }

    /// A client for an undo: the target from the record, the credentials from this process's environment.
    static func forUndo(target: S3Target, in context: EffectContext, what: String) throws -> S3Client {
        let credentials: SignatureV4.Credentials
        do {
            credentials = try S3Client.credentials(from: context.environment.variables, host: URLComponents(string: target.endpoint)?.host)
        } catch {
            throw ShiplaneError("\(what) stays: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY so rollback can remove it, or remove it by hand")
        }
        return S3Client(target: target, signer: SignatureV4(credentials: credentials, region: target.region),
                        transport: context.transport(secrets: [credentials.secretAccessKey] + (credentials.sessionToken.map { [$0] } ?? [])),
                        now: { Date() })
    }
}
