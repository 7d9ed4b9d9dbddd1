import Crypto
import Foundation
import Hummingbird
import NIOCore

/// Build uploads, upload files, their parts and the commit, in the fake App Store Connect.
extension FakeAppStoreConnect {
    func createUpload(_ body: [UInt8]) -> Response {
        switch jsonAPI(body, type: "buildUploads", id: nil, attributes: ["cfBundleShortVersionString", "cfBundleVersion", "platform"],
                       optional: [], relationships: ["app"]) {
        case .refused(let refusal): return refusal
        case .ok(let parsed):
            guard let appID = parsed.related["app"], apps[appID] != nil else { return notFound("apps", parsed.related["app"] ?? "") }
            let version = parsed.attributes["cfBundleShortVersionString"] as? String ?? ""
            let build = parsed.attributes["cfBundleVersion"] as? String ?? ""
            let platform = parsed.attributes["platform"] as? String ?? ""
            guard ["IOS", "MAC_OS", "TV_OS", "VISION_OS"].contains(platform) else {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid", "platform \(platform)")
            }
            let duplicate = builds.values.contains { $0.appID == appID && $0.version == build && $0.shortVersion == version && $0.platform == platform }
                || uploads.values.contains { $0.appID == appID && $0.version == version && $0.build == build && $0.platform == platform && $0.state != "FAILED" }
            guard !duplicate else {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE", "The bundle version must be higher than the previously uploaded version.",
                                  "build \(version) (\(build)) was already uploaded")
            }
            let id = newID("upload")
            uploads[id] = BuildUpload(appID: appID, version: version, build: build, platform: platform, state: "AWAITING_UPLOAD")
            return reply(201, ["data": uploadJSON(id, uploads[id] ?? BuildUpload(appID: "", version: "", build: "", platform: "", state: ""))])
        }
    }

    func createFile(_ body: [UInt8]) -> Response {
        switch jsonAPI(body, type: "buildUploadFiles", id: nil, attributes: ["fileName", "fileSize", "uti", "assetType"],
                       optional: [], relationships: ["buildUpload"]) {
        case .refused(let refusal): return refusal
        case .ok(let parsed):
            guard let uploadID = parsed.related["buildUpload"], var upload = uploads[uploadID] else { return notFound("buildUploads", "") }
            guard upload.state == "AWAITING_UPLOAD" else { return error(409, "ENTITY_ERROR.STATE", "Invalid state", "the build upload is \(upload.state)") }
            guard parsed.attributes["uti"] as? String == "com.apple.ipa", parsed.attributes["assetType"] as? String == "ASSET",
                  let size = (parsed.attributes["fileSize"] as? NSNumber)?.int64Value, size > 0,
                  let name = parsed.attributes["fileName"] as? String, name.hasSuffix(".ipa") else {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid", "fileName, fileSize, uti or assetType")
            }
            let id = newID("file")
            let storage = storageFolder + "/\(id)"
            _ = FileManager.default.createFile(atPath: storage, contents: nil)
            let (parts, operations) = uploadOperations(fileID: id, size: size)
            files[id] = UploadFile(uploadID: uploadID, name: name, size: size, parts: parts, storage: storage)
            upload.fileIDs.append(id)
            uploads[uploadID] = upload
            return reply(201, ["data": ["type": "buildUploadFiles", "id": id, "attributes": [
                "fileName": name, "fileSize": size, "uti": "com.apple.ipa", "assetType": "ASSET",
                "uploadOperations": operations, "assetDeliveryState": ["state": "AWAITING_UPLOAD"],
            ]]])
        }
    }

    func commitFile(_ id: String, _ body: [UInt8]) -> Response {
        guard let file = files[id] else { return notFound("buildUploadFiles", id) }
        switch jsonAPI(body, type: "buildUploadFiles", id: id, attributes: ["uploaded", "sourceFileChecksums"], optional: [], relationships: []) {
        case .refused(let refusal): return refusal
        case .ok(let parsed):
            guard parsed.attributes["uploaded"] as? Bool == true,
                  let sums = parsed.attributes["sourceFileChecksums"] as? [String: Any], Set(sums.keys) == ["file"],
                  let sum = sums["file"] as? [String: Any], Set(sum.keys) == ["hash", "algorithm"],
                  sum["algorithm"] as? String == "SHA_256", let hash = sum["hash"] as? String else {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid", "uploaded: true and sourceFileChecksums.file {hash, algorithm} are required")
            }
            guard file.received.count == file.parts.count else {
                return error(409, "ENTITY_ERROR.UPLOAD_INCOMPLETE", "The upload is incomplete", "\(file.parts.count - file.received.count) part(s) were not uploaded")
            }
            guard Self.sha256(ofFile: file.storage) == hash.lowercased() else {
                return error(409, "ENTITY_ERROR.CHECKSUM_MISMATCH", "Checksum mismatch", "the checksum does not match the bytes received")
            }
            files[id]?.committed = true
            uploads[file.uploadID]?.state = "PROCESSING"
            return reply(200, ["data": ["type": "buildUploadFiles", "id": id, "attributes": [
                "fileName": file.name, "fileSize": file.size, "assetDeliveryState": ["state": "UPLOAD_COMPLETE"],
            ]]])
        }
    }

    /// Splits a file of `size` bytes into parts (at most `partCount`), each with its own URL,
    /// token and required headers, and the operations Apple's answer lists for them.
    func uploadOperations(fileID id: String, size: Int64) -> (parts: [(offset: Int64, length: Int64, token: String)], operations: [[String: Any]]) {
        let count = Int64(max(1, partCount))
        let partSize = (size + count - 1) / count
        var parts: [(offset: Int64, length: Int64, token: String)] = []
        var offset: Int64 = 0
        while offset < size {
            let length = min(partSize, size - offset)
            parts.append((offset, length, UUID().uuidString))
            offset += length
        }
        let expires = Date().addingTimeInterval(uploadURLLifetime)
        let operations: [[String: Any]] = parts.enumerated().map { index, part in
            let length = leaveGap && index == parts.count - 1 ? part.length - 1 : part.length
            return [
                "method": "PUT", "offset": part.offset, "length": length, "partNumber": index + 1,
                "url": "\(baseURL)/upload/\(id)/\(index + 1)?token=\(part.token)&expires=\(Int(expires.timeIntervalSince1970))",
                "requestHeaders": [["name": "Content-Type", "value": "application/octet-stream"],
                                   ["name": "X-Apple-Upload-Part", "value": String(index + 1)],
                                   ["name": "X-Apple-Upload-Token", "value": String(part.token.reversed())]],
                "expiration": ISO8601DateFormatter().string(from: expires),
            ]
        }
        return (parts, operations)
    }

    /// One upload operation: right token, unexpired, no Authorization, the headers asked for, exactly its bytes.
    func receivePart(_ request: Request, path: String, query: [String: String]) async throws -> Response {
        let segments = path.split(separator: "/").map(String.init)
        let headers = ["content-type", "x-apple-upload-part", "x-apple-upload-token", "authorization", "content-length"]
        let seen = Dictionary(uniqueKeysWithValues: headers.compactMap { name in request.header(name).map { (name, $0) } })
        let lookup: (file: UploadFile, index: Int)? = lock.withLock {
            partRequests.append((path, seen))
            guard segments.count == 3, let file = files[segments[1]], let number = Int(segments[2]), number >= 1, number <= file.parts.count else { return nil }
            return (file, number - 1)
        }
        guard request.method == .put, let (file, index) = lookup else { return Reply.text(404, "<Error><Code>NoSuchUpload</Code></Error>", contentType: "application/xml") }
        let part = file.parts[index]
        guard query["token"] == part.token, let expires = Double(query["expires"] ?? ""), expires > Date().timeIntervalSince1970 else {
            return Reply.text(403, "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>", contentType: "application/xml")
        }
        guard seen["authorization"] == nil else { return Reply.text(400, "<Error><Code>InvalidArgument</Code><Message>Unexpected Authorization header</Message></Error>", contentType: "application/xml") }
        guard seen["content-type"] == "application/octet-stream", seen["x-apple-upload-part"] == String(index + 1),
              seen["x-apple-upload-token"] == String(part.token.reversed()), seen["content-length"] == String(part.length) else {
            return Reply.text(400, "<Error><Code>MissingHeader</Code><Message>required headers missing or wrong</Message></Error>", contentType: "application/xml")
        }
        guard let handle = FileHandle(forWritingAtPath: file.storage) else { return Reply.text(500, "storage") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(part.offset))
        var count: Int64 = 0
        for try await chunk in request.body {
            count += Int64(chunk.readableBytes)
            guard count <= part.length else { return Reply.text(400, "<Error><Code>IncompleteBody</Code></Error>", contentType: "application/xml") }
            handle.write(Data(chunk.readableBytesView))
        }
        guard count == part.length else { return Reply.text(400, "<Error><Code>IncompleteBody</Code></Error>", contentType: "application/xml") }
        lock.withLock { _ = files[segments[1]]?.received.insert(index) }
        return Reply.empty(200, headers: ["ETag": "\"part-\(index + 1)\""])
    }

    static func sha256(ofFile path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try? handle.read(upToCount: 4 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
