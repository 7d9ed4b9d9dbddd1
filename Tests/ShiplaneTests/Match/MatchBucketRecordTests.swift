import Foundation
import Testing
@testable import Shiplane

/// Records that runs wrote before the two bucket stores became one (`MatchBucketStore`) still
/// decode as their effects, with the same names and fields, and undo through the shared undo.
@Suite("match bucket records of earlier versions: they decode and undo (moto, the Cloud Storage stand-in)", .serialized, .offThePool, .tags(.slow))
struct MatchBucketRecordTests {
    func effect(_ json: String) throws -> AnyEffect { try JSONDecoder().decode(AnyEffect.self, from: Data(json.utf8)) }

    func context(_ variables: [String: String]) -> EffectContext {
        EffectContext(workTree: "/", environment: LaneEnvironment(variables: variables), fileSystem: LiveFileSystem(), http: LiveHTTPClient(),
                      retryPolicy: RetryPolicy(), savedCopies: MemorySavedCopies(), gitFolder: nil)
    }

    @Test("S3: match.keyKept naming a bucket object and match.s3ObjectWritten as earlier versions wrote them undo on moto (the kept key deleted, the new object deleted at its ETag)")
    func s3RecordsOfEarlierVersionsUndo() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let variables = server.environment
        let target = MatchS3Bucket.target(bucket: server.bucket, variables: variables)
        let bucket = MatchS3Bucket(client: try MatchS3Bucket.client(target: target, variables: variables,
                                                                    transport: { _ in HTTPTransport(sender: LiveHTTPClient()) }, now: { Date() }))
        let keyObject = "signing/.shiplane-match-keys/DISTRIBUTION-0123456789abcdef.json"
        let certificate = "signing/TEAM123456/certs/distribution/ABC.cer"
        let bytes = Data("encrypted certificate".utf8)
        _ = try #require(try await bucket.put(keyObject, bytes: Data("{}".utf8), ifVersion: nil))
        let etag = try #require(try await bucket.put(certificate, bytes: bytes, ifVersion: nil))
        let targetJSON = #"{"endpoint":"\#(target.endpoint)","region":"\#(target.region)","bucket":"\#(target.bucket)","pathStyle":\#(target.pathStyle)}"#

        let kept = try effect(#"{"kind":"match.keyKept","effect":{"name":"DISTRIBUTION-0123456789abcdef","target":\#(targetJSON),"object":"\#(keyObject)"}}"#)
        let keptValue = try #require(kept.as(MatchKeyKept.self))
        #expect(keptValue.object == keyObject && keptValue.target == target)
        let etagJSON = etag.replacingOccurrences(of: "\"", with: "\\\"")
        let written = try effect(#"{"kind":"match.s3ObjectWritten","effect":{"target":\#(targetJSON),"key":"\#(certificate)","sha256":"\#(SHA256.hex(of: bytes))","etag":"\#(etagJSON)"}}"#)
        let writtenValue = try #require(written.as(MatchS3ObjectWritten.self))
        #expect(writtenValue.etag == etag && writtenValue.sha256 == SHA256.hex(of: bytes) && writtenValue.saved == nil)

        try await keptValue.undo(in: context(variables), status: .done)
        try await writtenValue.undo(in: context(variables), status: .done)
        #expect(try server.contents().objects.isEmpty)
    }

    @Test("Cloud Storage: match.gcsObjectWritten and match.gcsObjectRemoved as earlier versions wrote them undo on the stand-in (the new object deleted at its generation; the removed one put back while nothing took its place)")
    func cloudStorageRecordsOfEarlierVersionsUndo() async throws {
        let gcs = FakeGCS()
        try await gcs.start()
        defer { gcs.stop() }
        let folder = NSTemporaryDirectory() + "shiplane-gcs-record-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let variables = try gcs.environment(keysFile: folder + "/gc_keys.json")
        let target = GCSTarget.of(bucket: gcs.bucket, variables: variables)
        let bytes = Data("encrypted profile".utf8)
        let name = "TEAM123456/profiles/appstore/AppStore_com.acme.rocket.mobileprovision"
        let generation = gcs.write(name, bytes)
        let targetJSON = #"{"endpoint":"\#(target.endpoint)","bucket":"\#(target.bucket)"}"#

        let written = try effect(#"{"kind":"match.gcsObjectWritten","effect":{"target":\#(targetJSON),"name":"\#(name)","sha256":"\#(SHA256.hex(of: bytes))","generation":\#(generation)}}"#)
        let writtenValue = try #require(written.as(MatchGCSObjectWritten.self))
        #expect(writtenValue.generation == generation && writtenValue.name == name)
        let undoContext = context(variables)
        try await writtenValue.undo(in: undoContext, status: .done)
        #expect(gcs.lock.withLock { gcs.objects.isEmpty })

        let saved = try undoContext.savedCopies.saveCopy(bytes, name: "removed")
        let removed = try effect(#"{"kind":"match.gcsObjectRemoved","effect":{"target":\#(targetJSON),"name":"\#(name)","saved":"\#(saved)"}}"#)
        let removedValue = try #require(removed.as(MatchGCSObjectRemoved.self))
        try await removedValue.undo(in: undoContext, status: .done)
        #expect(gcs.lock.withLock { gcs.objects[name]?.bytes } == bytes, "put back")
        let theirs = Data("another machine's".utf8)
        _ = gcs.write(name, theirs)
        try await removedValue.undo(in: undoContext, status: .done)
        #expect(gcs.lock.withLock { gcs.objects[name]?.bytes } == theirs, "kept: something took its place")
    }
}
