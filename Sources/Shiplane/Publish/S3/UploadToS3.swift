import Foundation

/// Puts one file in an S3-compatible bucket (AWS, MinIO, R2, Spaces): one PUT for a small file, a
/// multipart upload for a large one, each request signed with Signature Version 4 and its bytes
/// checked by the server (Content-MD5, x-amz-content-sha256, x-amz-checksum-sha256). An object that
/// already holds the same bytes is left alone and nothing is sent; one holding other bytes stops
/// the step. A run killed in a multipart upload continues it when run again (the parts S3 holds,
/// checked by MD5, are not sent again); a rollback aborts it and deletes what the run put.
package struct UploadToS3: AsyncAction {
    package static let name = "uploadToS3"
    package var file: String
    package var target: S3Target
    /// The object's key: `prefix` and the file's name.
    package var key: String
    /// `private` or `public-read`.
    package var acl: String
    /// Files larger than this go up in parts of this size (at least 5 MiB, S3's smallest part).
    package var partSize: Int64

    package var options: [StepOption] {
        [StepOption("file", file), StepOption("to", target.display(key)), StepOption("endpoint", target.endpoint), StepOption("acl", acl)]
    }

    /// Uploads the file (or finds it there already) and returns the object's URL.
    /// - Throws: `S3Failure` for a refused request (with what to do), `ShiplaneError` for missing
    ///   credentials, a missing file or an object holding other bytes.
    package func run(in step: StepContext) async throws -> String {
        let path = step.resolve(file)
        try step.checkSendableFile(path)
        let credentials = try S3Client.credentials(from: step.lane.environment.variables, host: URLComponents(string: target.endpoint)?.host)
        // From .netrc the secret is not among the environment's: it is registered here.
        step.lane.registerSecret(credentials.secretAccessKey)
        let client = S3Client(target: target, signer: SignatureV4(credentials: credentials, region: target.region),
                              transport: step.httpTransport(), now: step.lane.state.now)
        let url = target.url(key: key)
        // Preflight: the bucket and the credentials, before anything is sent (a dry run too).
        try await client.checkBucket()
        let digests = try FileDigests.read(path)
        let sha = SignatureV4.hex(digests.sha256)
        let earlier = step.lane.state.journal.earlierAttempt(step: step.number, kind: S3ObjectUploaded.kind)
        let earlierEffect = earlier?.effect.as(S3ObjectUploaded.self).flatMap { $0.target == target && $0.key == key ? $0 : nil }

        if let head = try await client.head(key) {
            if head.sha256 == sha || (head.sha256 == nil && head.etag == "\"\(SignatureV4.hex(digests.md5))\"" && head.size == digests.size) {
                if let earlier, let earlierEffect {
                    if let uploadID = earlierEffect.uploadID { try await client.abortMultipartUpload(key, uploadID: uploadID) }
                    var finished = earlierEffect
                    finished.uploadID = nil
                    finished.etag = head.etag
                    step.lane.state.journal.done(earlier.handle, effect: try? AnyEffect(finished))
                }
                step.note("\(target.display(key)) already holds these bytes: nothing sent")
                return url
            }
            throw ShiplaneError(
                "\(target.display(key)) exists with other bytes",
                info: [("sha256 of \(file)", sha), ("sha256 there", head.sha256 ?? "unknown (not put by Shiplane)")],
                suggestion: "bump the version (or change the prefix) so the release gets keys of its own; nothing was sent")
        }

        let parts = Self.parts(size: digests.size, partSize: partSize)
        if step.isDryRun {
            let how = parts.count > 1 ? "in a multipart upload of \(parts.count) parts of \(ByteCountText.file(partSize))" : "in one PUT"
            step.note("would put \(file) (\(ByteCountText.file(digests.size)), sha256 \(sha)) at \(target.display(key)) \(how), acl \(acl)")
            return url
        }
        var effect = earlierEffect ?? S3ObjectUploaded(target: target, key: key, sha256: sha)
        if parts.count <= 1 {
            let handle = try step.record(effect, "delete \(target.display(key))")
            effect.etag = try await client.put(key, file: path, digests: digests, acl: acl)
            step.done(handle, effect)
        } else {
            try await multipart(step: step, client: client, path: path, digests: digests, parts: parts, effect: &effect,
                                earlier: earlierEffect == nil ? nil : earlier?.handle)
        }
        guard let landed = try await client.head(key), landed.sha256 == sha, landed.size == digests.size else {
            throw ShiplaneError("\(target.display(key)) does not hold the bytes sent after the upload",
                                suggestion: "run again: the upload is checked and sent again; report it if it persists")
        }
        step.note("\(file) → \(target.display(key))")
        return url
    }

    /// Starts (or continues the earlier attempt's) multipart upload, sends the parts S3 lacks and completes it.
    /// The record leaves the machine (`effectUnderWay`) before the upload is asked for and again once
    /// S3 named it, so a retry in a fresh clone continues it instead of leaving it open.
    private func multipart(step: StepContext, client: S3Client, path: String, digests: FileDigests, parts: [(offset: Int64, length: Int64)],
                           effect: inout S3ObjectUploaded, earlier: Int?) async throws {
        var held: [Int: String] = [:]
        var handle: EffectHandle?
        let sums = try parts.map { try FileDigests.slice(path, offset: $0.offset, length: $0.length) }
        let expected = sums.map { "\"\(SignatureV4.hex($0.md5))\"" }
        if let earlier, let uploadID = effect.uploadID, let listed = try await client.listParts(key, uploadID: uploadID) {
            held = listed
            handle = EffectHandle(index: earlier)
            step.log("continuing the multipart upload of \(target.display(key)): S3 holds \(held.count) of \(parts.count) parts")
        } else if let earlier, effect.uploadID == nil,
                  let found = try await adoptUnnamedUpload(client: client, expected: expected, step: step) {
            // The earlier attempt asked for an upload and was stopped before it wrote S3's answer down.
            (effect.uploadID, held) = (found.uploadID, found.held)
            handle = EffectHandle(index: earlier)
            step.done(handle, effect)
            step.lane.effectUnderWay("the multipart upload of \(target.display(key))")
            step.log("continuing the multipart upload of \(target.display(key)) an earlier attempt began: S3 holds \(held.count) of \(parts.count) parts")
        } else {
            effect.uploadID = nil
            handle = try step.record(effect, "abort the upload and delete \(target.display(key))")
            step.lane.effectUnderWay("the multipart upload of \(target.display(key)) about to begin")
            effect.uploadID = try await client.createMultipartUpload(key, digests: digests, acl: acl)
            // Written down at once, here and on the remote: a kill from here on continues this upload or aborts it.
            step.done(handle, effect)
            step.lane.effectUnderWay("the multipart upload of \(target.display(key))")
        }
        guard let uploadID = effect.uploadID else { return }
        var etags: [(number: Int, etag: String)] = []
        for (index, part) in parts.enumerated() {
            let number = index + 1
            if held[number] == expected[index] {
                etags.append((number, expected[index]))
                continue
            }
            let etag = try await client.uploadPart(key, uploadID: uploadID, number: number, file: path, offset: part.offset,
                                                   length: part.length, md5: sums[index].md5, sha256: sums[index].sha256)
            guard etag == expected[index] else {
                throw ShiplaneError("S3 answered part \(number) of \(target.display(key)) with ETag \(etag), not its MD5 \(expected[index])",
                                    suggestion: "run again: the part is sent again")
            }
            step.log("part \(number) of \(parts.count) sent")
            etags.append((number, etag))
        }
        effect.etag = try await client.completeMultipartUpload(key, uploadID: uploadID, parts: etags)
        effect.uploadID = nil
        step.done(handle, effect)
    }

    /// The upload an earlier attempt of this step asked for but never wrote down (stopped before
    /// S3's answer), found among the key's open uploads: one whose every part is a part of this
    /// file (by number and MD5) is continued, and any further such one aborted (the same bytes, to
    /// the same key: a duplicate of this run's). Uploads holding other bytes are someone else's and stay.
    private func adoptUnnamedUpload(client: S3Client, expected: [String], step: StepContext) async throws
        -> (uploadID: String, held: [Int: String])? {
        var found: [(uploadID: String, held: [Int: String])] = []
        for uploadID in try await client.openUploads(key) {
            guard let held = try await client.listParts(key, uploadID: uploadID) else { continue }
            if held.allSatisfy({ expected.indices.contains($0.key - 1) && expected[$0.key - 1] == $0.value }) {
                found.append((uploadID, held))
            } else {
                step.log("\(target.display(key)) has an open multipart upload with other bytes (\(uploadID)): not this run's, left as it is", level: .warning)
            }
        }
        guard let kept = found.max(by: { $0.held.count < $1.held.count }) else { return nil }
        for other in found where other.uploadID != kept.uploadID {
            try await client.abortMultipartUpload(key, uploadID: other.uploadID)
        }
        return kept
    }

    /// The parts of a file of `size` bytes: one when it fits in `partSize`.
    static func parts(size: Int64, partSize: Int64) -> [(offset: Int64, length: Int64)] {
        guard size > partSize else { return [(0, size)] }
        return stride(from: Int64(0), to: size, by: Int(partSize)).map { ($0, min(partSize, size - $0)) }
    }
}

extension LaneContext {
    /// Puts files in an S3-compatible bucket, one step each, and returns their URLs; a re-run sends
    /// nothing for an object already holding the same bytes. Credentials come from
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, else from `~/.netrc`
    /// (`NETRC`): the endpoint host's login and password.
    @discardableResult
    public func uploadToS3(
        _ files: [any ArtifactConvertible], bucket: String, prefix: String = "", region: String? = nil, endpoint: String? = nil,
        pathStyle: Bool = false, acl: String = "private", partSize: Int = 8 << 20, file: String = #fileID, line: Int = #line
    ) async throws -> [String] {
        var problems: [String] = []
        if bucket.isEmpty { problems.append("bucket is empty") }
        if acl != "private" && acl != "public-read" { problems.append("acl \(acl) is neither private nor public-read") }
        if partSize < 5 << 20 { problems.append("partSize \(partSize) is below S3's smallest part, 5 MiB (5242880)") }
        if files.isEmpty { problems.append("no files given") }
        let paths = try ArtifactInputs.paths(files)
        let region = region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        let endpoint = endpoint ?? environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"] ?? "https://s3.\(region).amazonaws.com"
        if let scheme = URLComponents(string: endpoint)?.scheme, scheme == "http" || scheme == "https" {} else {
            problems.append("endpoint \(endpoint) is not an http or https URL")
        }
        guard problems.isEmpty else {
            throw ValidationFailure(problems: problems, suggestion: "fix the call to uploadToS3; nothing was sent")
        }
        let target = S3Target(endpoint: endpoint, region: region, bucket: bucket, pathStyle: pathStyle)
        var urls: [String] = []
        for path in paths {
            let name = (path as NSString).lastPathComponent
            let key = prefix.isEmpty ? name : (prefix.hasSuffix("/") ? prefix : prefix + "/") + name
            urls.append(try await run(UploadToS3(file: path, target: target, key: key, acl: acl, partSize: Int64(partSize)), file: file, line: line))
        }
        return urls
    }
}

extension UploadToS3: DocumentedAction {
    /// How `lane.uploadToS3` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Put files in an S3-compatible bucket (AWS, MinIO, R2, Spaces): SigV4, multipart resumed after a kill, digests checked, unchanged objects not sent",
        signature: "try await lane.uploadToS3(_ files: [any ArtifactConvertible], bucket: String, prefix: String = \"\", region: String? = nil, endpoint: String? = nil, pathStyle: Bool = false, acl: String = \"private\", partSize: Int = 8 << 20) -> [String]",
        parameters: [
            .init(name: "files", type: "[any ArtifactConvertible]", defaultValue: nil, help: "the files (paths or artifacts) to put, one step each"),
            .init(name: "bucket", type: "String", defaultValue: nil, help: "the bucket"),
            .init(name: "prefix", type: "String", defaultValue: "\"\"", help: "the keys' prefix (a folder: releases/1.2.0)"),
            .init(name: "region", type: "String?", defaultValue: "nil", help: "AWS_REGION, AWS_DEFAULT_REGION or us-east-1"),
            .init(name: "endpoint", type: "String?", defaultValue: "nil", help: "AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or AWS's endpoint for the region"),
            .init(name: "pathStyle", type: "Bool", defaultValue: "false", help: "address the bucket in the path (MinIO, local servers)"),
            .init(name: "acl", type: "String", defaultValue: "\"private\"", help: "private or public-read"),
            .init(name: "partSize", type: "Int", defaultValue: "8 << 20", help: "larger files go up in parts of this size (at least 5 MiB)"),
        ],
        example: #"try await lane.uploadToS3(lane.artifacts, bucket: "downloads", prefix: "releases/\(version)", acl: "public-read")"#,
        dryRun: "checks the bucket and credentials and reads each object's digest; says what would be put and how",
        rollback: "aborts an unfinished multipart upload; deletes each object this run put while it still holds the bytes put (If-Match on its ETag)"
    )
}
