import Foundation

/// What one set (locale × display type) needs: items kept (same checksum and file name, or same
/// checksum), files to upload, items to delete once the new ones are in, and the order to set.
struct AppStoreMediaSetPlan: Sendable {
    var kind: AppStoreMediaKind
    var locale: String
    var type: String
    var setID: String?
    /// Wanted files, in order, each with the id of the item kept for it (nil: to upload).
    var files: [(file: AppStoreMediaFile, keptID: String?)]
    /// Items in the set that the folder no longer has (or replaced), and leftovers of unfinished uploads.
    var delete: [(id: String, fileName: String)]
    /// The set's item ids before this run, in order.
    var existing: [String]
    /// App previews kept whose still frame differs from the one asked for: only their
    /// `previewFrameTimeCode` is changed (no upload), `previous` kept for the undo.
    var timeCodes: [(id: String, fileName: String, previous: String?, wanted: String)] = []

    var label: String { "\(locale) \(type)" }
    var uploads: [AppStoreMediaFile] { files.filter { $0.keptID == nil }.map(\.file) }

    /// Whether the order needs setting once the uploads (added last, in file order) are in and the deletions done.
    var needsReorder: Bool {
        let kept = Set(files.compactMap(\.keptID))
        let after = existing.filter(kept.contains) + files.filter { $0.keptID == nil }.map { "new:" + $0.file.fileName }
        let wanted = files.map { $0.keptID ?? "new:" + $0.file.fileName }
        return after != wanted
    }

    /// Compares the folder's files for a set with the set's items.
    /// `timeCode`: the still frame app previews are to have (nil: whatever they have stays).
    static func make(kind: AppStoreMediaKind, locale: String, type: String, setID: String?, files: [AppStoreMediaFile],
                     items: [AppStoreMediaClient.Item], timeCode: String? = nil) -> AppStoreMediaSetPlan {
        var unmatched = items.filter { $0.attributes?.sourceFileChecksum != nil && ($0.attributes?.state?.state ?? "COMPLETE") != "FAILED" }
        var planned: [(file: AppStoreMediaFile, keptID: String?)] = []
        for file in files {
            let index = unmatched.firstIndex { $0.attributes?.sourceFileChecksum == file.checksum && $0.attributes?.fileName == file.fileName }
                ?? unmatched.firstIndex { $0.attributes?.sourceFileChecksum == file.checksum }
            if let index {
                planned.append((file, unmatched[index].id))
                unmatched.remove(at: index)
            } else {
                planned.append((file, nil))
            }
        }
        let kept = Set(planned.compactMap(\.keptID))
        let delete = items.filter { !kept.contains($0.id) }.map { ($0.id, $0.attributes?.fileName ?? $0.id) }
        var plan = AppStoreMediaSetPlan(kind: kind, locale: locale, type: type, setID: setID, files: planned, delete: delete, existing: items.map(\.id))
        if kind == .previews, let timeCode {
            for (file, keptID) in planned {
                guard let keptID, let item = items.first(where: { $0.id == keptID }), item.attributes?.previewFrameTimeCode != timeCode else { continue }
                plan.timeCodes.append((keptID, file.fileName, item.attributes?.previewFrameTimeCode, timeCode))
            }
        }
        return plan
    }

    /// The plan's lines: what is uploaded, kept, deleted and reordered.
    var lines: [String] {
        var lines: [String] = []
        let deletedNames = Set(delete.map(\.fileName))
        for (file, keptID) in files {
            if let keptID, let change = timeCodes.first(where: { $0.id == keptID }) {
                lines.append("\(kind.noun)s \(label): keep \(file.fileName), still frame \(change.previous ?? "(none)") → \(change.wanted)")
            } else if keptID != nil {
                lines.append("\(kind.noun)s \(label): keep \(file.fileName)")
            } else {
                lines.append("\(kind.noun)s \(label): upload \(file.fileName) (\(ByteCountText.file(file.size)), \(deletedNames.contains(file.fileName) ? "replaces the one on App Store Connect" : "new"))")
            }
        }
        for item in delete { lines.append("\(kind.noun)s \(label): delete \(item.fileName) once the new ones are in") }
        if needsReorder { lines.append("\(kind.noun)s \(label): order \(files.map(\.file.fileName).joined(separator: ", "))") }
        return lines
    }

    var changes: Bool { !uploads.isEmpty || !delete.isEmpty || needsReorder || !timeCodes.isEmpty }
}

/// Brings the screenshot and app preview sets of a version's localizations in line with the folders.
struct AppStoreMediaSync: Sendable {
    let media: AppStoreMediaClient
    let partTransport: HTTPTransport
    let concurrency: Int
    let now: @Sendable () -> Date
    /// Sent with each app preview reserved and committed (`hh:mm:ss:ff`); nil sends none.
    var previewFrameTimeCode: String?

    /// Plans every set the folder has, for the localizations that exist (`localizationIDs`; a
    /// locale with none yet gets a set made from nothing).
    ///
    /// Files are hashed (MD5) here only for sets that hold images already, to compare with them;
    /// the others are hashed while they upload.
    func plan(_ folders: [AppStoreMediaFolder], localizationIDs: [String: String]) async throws -> [AppStoreMediaSetPlan] {
        var found: [(kind: AppStoreMediaKind, locale: String, type: String, setID: String?, files: [AppStoreMediaFile], items: [AppStoreMediaClient.Item])] = []
        for folder in folders {
            for (locale, types) in folder.sets.sorted(by: { $0.key < $1.key }) {
                var sets: [AppStoreMediaClient.MediaSet] = []
                if let id = localizationIDs[locale] { sets = try await media.sets(folder.kind, localizationID: id) }
                for (type, files) in types.sorted(by: { $0.key < $1.key }) {
                    let set = sets.first { ($0.attributes?.screenshotDisplayType ?? $0.attributes?.previewType) == type }
                    var items: [AppStoreMediaClient.Item] = []
                    if let set { items = try await media.items(folder.kind, setID: set.id) }
                    found.append((folder.kind, locale, type, set?.id, files, items))
                }
            }
        }
        let compared = found.indices.filter { index in
            found[index].items.contains { $0.attributes?.sourceFileChecksum != nil } && found[index].files.contains { $0.checksum == nil }
        }
        let hashed = try AppStoreMediaFolder.withChecksums(compared.flatMap { found[$0].files })
        var at = 0
        for index in compared {
            let count = found[index].files.count
            found[index].files = Array(hashed[at..<(at + count)])
            at += count
        }
        return found.map { set in
            .make(kind: set.kind, locale: set.locale, type: set.type, setID: set.setID, files: set.files, items: set.items, timeCode: previewFrameTimeCode)
        }
    }

    /// Carries the plans out: sets created, new items uploaded (concurrently), checked, then the
    /// replaced ones deleted and the order set. Every change is an effect in the step's record.
    /// - Throws: store and transport errors; all failed uploads together.
    func apply(_ plans: [AppStoreMediaSetPlan], localizationIDs: [String: String], in step: StepContext) async throws {
        let api = media.client.apiBaseURL
        var plans = plans
        let media = self.media, transport = partTransport, now = self.now, timeCode = previewFrameTimeCode
        // Sets first, so uploads know where they go: all written down in one record write, then
        // made `concurrency` at a time. Their undo finds a set without its id, so the ids reach
        // the record with its next write.
        var missing: [(plan: Int, effect: AppStoreMediaSetCreated)] = []
        for index in plans.indices where plans[index].setID == nil && plans[index].changes {
            let plan = plans[index]
            guard let localizationID = localizationIDs[plan.locale] else {
                throw ShiplaneError("the \(plan.locale) localization of the version is missing", suggestion: "run again")
            }
            missing.append((index, AppStoreMediaSetCreated(api: api, resource: plan.kind.setResource, id: nil, localizationID: localizationID,
                                                           type: plan.type, label: plan.label)))
        }
        let setHandles = try step.record(missing.map { (effect: $0.effect, description: "delete the \($0.effect.label) \(plans[$0.plan].kind.noun) set") })
        let kinds = missing.map { plans[$0.plan].kind }
        let created = try await performConcurrently(Array(missing.enumerated()), limit: concurrency, what: "screenshot and app preview sets") { number, item in
            var done = item.effect
            done.id = try await media.createSet(kinds[number], localizationID: item.effect.localizationID, type: item.effect.type)
            step.doneLater(setHandles[number], done)
            return (plan: item.plan, id: done.id)
        }
        for set in created { plans[set.plan].setID = set.id }
        struct Upload: Sendable { var plan: Int; var setID: String; var file: AppStoreMediaFile; var kind: AppStoreMediaKind; var label: String; var existing: [String] }
        let uploads = plans.indices.flatMap { index in
            plans[index].uploads.map { Upload(plan: index, setID: plans[index].setID ?? "", file: $0, kind: plans[index].kind, label: plans[index].label,
                                              existing: plans[index].existing) }
        }
        // Every reservation is written down in one record write before the first is sent; the
        // ids Apple gives them reach the record with its next write (their undo finds an item
        // without its id: by file name and checksum among the items that were not there before).
        let effects = uploads.map { upload in
            AppStoreMediaUploaded(api: api, resource: upload.kind.resource, setID: upload.setID, id: nil, fileName: upload.file.fileName,
                                  checksum: upload.file.checksum, existingIDs: upload.existing, label: upload.label)
        }
        let handles = try step.record(zip(uploads, effects).map { upload, effect in
            (effect: effect, description: "delete the \(upload.kind.noun) \(upload.file.fileName) (\(upload.label))")
        })
        // Three stages hand each file on, so that no API round trip leaves an upload slot idle:
        // `concurrency` tasks reserve files ahead (at most 4 × `concurrency` reserved and waiting:
        // uploads of a few milliseconds each outran reservations made just in time, 1.3–2.8 of 4
        // in flight);
        // `concurrency` uploaders each send one file's bytes after another, taking the next
        // reserved file the moment theirs is in (no task to wake, no slot to pass on); and
        // `concurrency` tasks commit the files sent, each once its MD5 is computed
        // (`AppStoreMediaDigests`) and the file is checked unchanged since it was read. Tasks are
        // few on purpose: each may get a thread of the lane's pool.
        struct Reserved: Sendable { var number: Int; var itemID: String; var operations: UploadOperations; var commitExtra: [String: String] }
        struct Sent: Sendable { var number: Int; var itemID: String; var commitExtra: [String: String] }
        let reserved = HandOver<Reserved>(capacity: 4 * concurrency), sent = HandOver<Sent>(capacity: Int.max)
        let digests = AppStoreMediaDigests(uploads.map(\.file))
        defer { digests.cancel() }
        async let reserving: [any Error] = {
            defer { reserved.finish() }
            do {
                _ = try await performConcurrently(Array(uploads.enumerated()), limit: concurrency, what: "screenshot and app preview reservations") { number, upload in
                    let file = upload.file
                    // An app preview says what video it is and which frame is its still, as Apple's description offers.
                    var reserveExtra: [String: String] = [:], commitExtra: [String: String] = [:]
                    if upload.kind == .previews {
                        reserveExtra["mimeType"] = AppStoreMediaFolder.previewMimeType(fileName: file.fileName)
                        if let timeCode {
                            reserveExtra["previewFrameTimeCode"] = timeCode
                            commitExtra["previewFrameTimeCode"] = timeCode
                        }
                    }
                    let item = try await media.reserve(upload.kind, setID: upload.setID, fileName: file.fileName, fileSize: file.size, extra: reserveExtra)
                    var done = effects[number]
                    done.id = item.id
                    step.doneLater(handles[number], done)
                    let operations = try UploadOperations(item.attributes?.uploadOperations ?? [], file: file.path, fileSize: file.size, now: now(),
                                                          what: "the \(upload.kind.noun) \(file.fileName)")
                    await reserved.put(Reserved(number: number, itemID: item.id, operations: operations, commitExtra: commitExtra))
                }
                return []
            } catch let error as AggregateError {
                return error.underlyingErrors
            } catch {
                return [error]
            }
        }()
        async let sending = reserved.drain(workers: concurrency) { job in
            // 512 KiB reads: each chunk costs a wake-up of the upload loop and a socket write
            // besides its bytes, and `concurrency` images of a few MiB each go up at once, about
            // two chunks of each in memory (Scripts/bench screenshots, 2026-11-26, interleaved
            // runs: the upload phase 0.324 s with 256 KiB, 0.302 s with 512 KiB, 0.260 s with
            // 1 MiB; peak RSS 53–54, 55–57 and 59–63 MiB).
            // `concurrency` connections for as many uploaders: each takes one back for its next file.
            try await job.operations.perform(with: transport, concurrency: 1, timeout: 600, chunkSize: 512 << 10, connections: concurrency) { _ in }
            await sent.put(Sent(number: job.number, itemID: job.itemID, commitExtra: job.commitExtra))
        }
        async let committing = sent.drain(workers: concurrency) { done in
            let upload = uploads[done.number]
            let (checksum, hashed) = try await digests.checksum(done.number)
            try Self.checkUnchanged(upload.file, hashed: hashed, label: upload.label, kind: upload.kind)
            let committed = try await media.commit(upload.kind, id: done.itemID, checksum: checksum, fileName: upload.file.fileName,
                                                   extra: done.commitExtra)
            if committed.attributes?.state?.state == "FAILED" {
                throw Self.failed(upload.kind, upload.file.fileName, upload.label, committed.attributes?.state)
            }
            step.log("\(upload.kind.noun)s \(upload.label): uploaded \(upload.file.fileName)")
            return (plan: upload.plan, fileName: upload.file.fileName, id: done.itemID, handle: handles[done.number])
        }
        let sendOutcomes = await sending
        digests.uploadsDone()
        sent.finish()
        let commitOutcomes = await committing
        // The reservations' failures first, then the uploads', then the commits'.
        var failures = await reserving
        var results: [(plan: Int, fileName: String, id: String, handle: EffectHandle?)] = []
        for outcome in sendOutcomes { if case .failure(let error) = outcome { failures.append(error) } }
        for outcome in commitOutcomes {
            switch outcome {
            case .success(let result): results.append(result)
            case .failure(let error): failures.append(error)
            }
        }
        if !failures.isEmpty {
            throw AggregateError("\(failures.count) of \(uploads.count) screenshot and app preview uploads failed", errors: failures)
        }
        for index in plans.indices where plans[index].changes {
            let plan = plans[index]
            guard let setID = plan.setID else { continue }
            // A preview already uploaded whose still frame is all that differs: that attribute alone, no upload.
            for change in plan.timeCodes {
                let effect = AppStorePreviewFrameChanged(api: api, id: change.id, fileName: change.fileName, previous: change.previous,
                                                         timeCode: change.wanted, label: plan.label)
                let handle = try step.record(effect, "put the still frame of \(change.fileName) (\(plan.label)) back to \(change.previous ?? "(none)")")
                try await media.setPreviewFrame(id: change.id, timeCode: change.wanted, fileName: change.fileName)
                step.done(handle)
                step.log("\(plan.kind.noun)s \(plan.label): still frame of \(change.fileName) set to \(change.wanted)")
            }
            let mine = results.filter { $0.plan == index }
            // Apple's word on the new ones: FAILED or never committed stops here (rollback deletes them).
            var listed: [String]?
            if !mine.isEmpty {
                let items = try await media.items(plan.kind, setID: setID)
                listed = items.map(\.id)
                for result in mine {
                    let state = items.first { $0.id == result.id }?.attributes?.state
                    if state?.state == "FAILED" || state?.state == "AWAITING_UPLOAD" {
                        throw Self.failed(plan.kind, result.fileName, plan.label, state)
                    }
                }
            }
            if !plan.delete.isEmpty {
                listed = nil
                // The new set is complete: what it replaces goes, and the new images are what the listing has from here on.
                for result in mine {
                    step.keep(result.handle, "the \(plan.kind.noun)s it replaced are deleted: it stays as the set's image")
                }
                for item in plan.delete {
                    let effect = AppStoreMediaDeleted(api: api, resource: plan.kind.resource, id: item.id, fileName: item.fileName, label: plan.label)
                    let handle = try step.record(effect, "the \(plan.kind.noun) \(item.fileName) (\(plan.label)) stays deleted")
                    try await media.delete(plan.kind.resource, id: item.id, what: "the \(plan.kind.noun) \(item.fileName) (\(plan.label))")
                    step.done(handle)
                    step.log("\(plan.kind.noun)s \(plan.label): deleted \(item.fileName)")
                }
            }
            let wanted = plan.files.map { file in file.keptID ?? mine.first { $0.fileName == file.file.fileName }?.id ?? "" }
            // The set as listed after the uploads, or listed anew when items went since.
            let current: [String]
            if let listed { current = listed } else { current = try await media.items(plan.kind, setID: setID).map(\.id) }
            guard Set(current) == Set(wanted) else {
                throw ShiplaneError("the \(plan.label) \(plan.kind.noun) set changed on App Store Connect while this run worked on it",
                                    info: [("expected", String(wanted.count)), ("found", String(current.count))],
                                    suggestion: "run again: the run compares the set anew")
            }
            if current != wanted {
                let effect = AppStoreMediaReordered(api: api, resource: plan.kind.setResource, setID: setID, previous: current, label: plan.label)
                let handle = try step.record(effect, "put the \(plan.label) \(plan.kind.noun)s back in their earlier order")
                try await media.reorder(plan.kind, setID: setID, ids: wanted)
                // Its undo needs nothing the answer adds: written with the record's next write.
                step.doneLater(handle, effect)
                step.log("\(plan.kind.noun)s \(plan.label): ordered \(plan.files.map(\.file.fileName).joined(separator: ", "))")
            }
        }
    }

    /// The file as it was read for its size (or hashed to plan), as hashed, and as it is now once
    /// its bytes are sent and hashed, must be the same file unchanged (the kernel sets its change
    /// time on every write): then the MD5 is of the bytes that went up. Otherwise committing
    /// would put up what the plan did not compare, or a checksum of other bytes.
    /// - Throws: `ShiplaneError` naming the file, when it was written to since.
    static func checkUnchanged(_ file: AppStoreMediaFile, hashed: FileStamp?, label: String, kind: AppStoreMediaKind) throws {
        guard let expected = file.stamp else { return }
        let now = FileStamp(path: file.path)
        guard now != expected || (hashed != nil && hashed != expected) else { return }
        throw ShiplaneError("\(file.path) changed while this run uploaded it (the \(label) \(kind.noun)s): its checksum would not be of the bytes that went up",
                            suggestion: "run again once nothing writes to the folder: the run compares the sets anew (rollback deletes the upload)")
    }

    static func failed(_ kind: AppStoreMediaKind, _ fileName: String, _ label: String, _ state: ASCDeliveryState?) -> StoreProcessingError {
        StoreProcessingError("App Store Connect did not take the \(kind.noun) \(fileName) (\(label)): \(state?.state ?? "no state")",
                             errors: (state?.errors ?? []).map(\.text), warnings: (state?.warnings ?? []).map(\.text),
                             suggestion: "fix what Apple lists (size, format, color space) and run again")
    }
}

/// A hand-over of values between tasks: `put` waits while `capacity` values are waiting already,
/// `take` waits for a value (nil once `finish` was called and none is left). A value ready when
/// asked for is taken without suspending: an uploader that has just sent a file starts the next
/// one on the thread it is on.
final class HandOver<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every field but `capacity` is only touched under `lock`.
    private let lock = NSLock()
    private let capacity: Int
    private var values: [Value] = []
    private var takers: [CheckedContinuation<Value?, Never>] = []
    private var putters: [(value: Value, continuation: CheckedContinuation<Void, Never>)] = []
    private var finished = false

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Hands `value` to a waiting taker, or keeps it; waits while `capacity` values are kept.
    func put(_ value: Value) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var taker: CheckedContinuation<Value?, Never>?
            let kept: Bool = lock.withLock {
                if !takers.isEmpty {
                    taker = takers.removeFirst()
                    return true
                }
                if values.count < capacity {
                    values.append(value)
                    return true
                }
                putters.append((value, continuation))
                return false
            }
            taker?.resume(returning: value)
            if kept { continuation.resume() }
        }
    }

    /// The next value, waiting for one; nil once finished and empty.
    func take() async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            var putter: CheckedContinuation<Void, Never>?
            let taken: Value?? = lock.withLock {
                if !values.isEmpty {
                    let value = values.removeFirst()
                    if !putters.isEmpty {
                        let next = putters.removeFirst()
                        values.append(next.value)
                        putter = next.continuation
                    }
                    return .some(value)
                }
                if finished { return .some(nil) }
                takers.append(continuation)
                return nil
            }
            putter?.resume()
            if let taken { continuation.resume(returning: taken) }
        }
    }

    /// No more values come: waiting takers get nil, and so do later ones once the kept values are taken.
    func finish() {
        let waiting: [CheckedContinuation<Value?, Never>] = lock.withLock {
            finished = true
            defer { takers = [] }
            return takers
        }
        for taker in waiting { taker.resume(returning: nil) }
    }

    /// Runs `workers` tasks that each take values and run `operation` on them, one after
    /// another, until the hand-over is finished and empty; every outcome, in no set order.
    func drain<Output: Sendable>(workers: Int, _ operation: @escaping @Sendable (Value) async throws -> Output) async -> [Result<Output, any Error>] {
        await withTaskGroup(of: [Result<Output, any Error>].self) { group in
            for _ in 0..<max(1, workers) {
                group.addTask {
                    var outcomes: [Result<Output, any Error>] = []
                    while let value = await self.take() {
                        do { outcomes.append(.success(try await operation(value))) } catch { outcomes.append(.failure(error)) }
                    }
                    return outcomes
                }
            }
            var all: [Result<Output, any Error>] = []
            for await outcomes in group { all += outcomes }
            return all
        }
    }
}

/// The MD5s of the files a run uploads that planning did not need, computed once the uploads
/// are done (`uploadsDone`), from a second read of each file, on a thread per core, eight files
/// at once per thread (`FileMD5Lanes`); a file whose MD5 is known already is ready at once.
///
/// Not beside the uploads: on a machine whose cores are the limit (a 2-core runner, a fast link)
/// hashing took from the uploads even at the idle scheduling policy. `Scripts/bench screenshots`
/// (bench/results.md, 2026-11-26): the upload phase at 61–68% of curl with the eight-lane MD5 at
/// the idle policy beside the uploads, 67–77% with one-file MD5 there, 36% hashing from the bytes
/// as they were sent; 69–85% (median 75%) after them. Hashing after the uploads costs about 0.1 s for
/// the bench's 524 MB on 2 cores (4.4 GB/s a core), read from the page cache the uploads just
/// filled; each file is committed as soon as its MD5 is known.
final class AppStoreMediaDigests: @unchecked Sendable {
    // @unchecked: `next`, `started` and `stamps` are only touched under `lock`; `digests` and
    // `pending` never change after init.
    private let lock = NSLock()
    private var next = 0
    private var started = false
    private var stamps: [Int: FileStamp] = [:]
    private let digests: [BackgroundDigest]
    private let pending: [(index: Int, path: String)]

    init(_ files: [AppStoreMediaFile]) {
        digests = files.map { _ in BackgroundDigest() }
        var pending: [(index: Int, path: String)] = []
        for (index, file) in files.enumerated() {
            if let checksum = file.checksum { digests[index].finish(.success(checksum)) } else { pending.append((index, file.path)) }
        }
        self.pending = pending
    }

    /// Files hashed so far (the tests read it).
    var hashedCount: Int { lock.withLock { stamps.count } }

    /// The uploads are done: the files are hashed now, on every core, in upload order.
    func uploadsDone() {
        let count: Int = lock.withLock {
            guard !started else { return 0 }
            started = true
            return pending.count
        }
        guard count > 0 else { return }
        for _ in 0..<min(count, max(1, ProcessInfo.processInfo.activeProcessorCount)) {
            let thread = Thread { [self] in
                FileMD5Lanes.hash(next: {
                    lock.withLock {
                        guard next < pending.count else { return nil }
                        defer { next += 1 }
                        return (next, pending[next].path)
                    }
                }, isCancelled: { slot in
                    digests[pending[slot].index].isCancelled
                }, done: { slot, outcome in
                    let index = pending[slot].index
                    switch outcome {
                    case .success(let hashed):
                        lock.withLock { stamps[index] = hashed.stamp }
                        digests[index].finish(.success(hashed.checksum))
                    case .failure(let error):
                        digests[index].finish(.failure(error))
                    }
                })
            }
            thread.name = "shiplane-md5"
            thread.start()
        }
    }

    /// The MD5 of the `index`th file, once computed, and the file's stamp when it was read (nil
    /// for an MD5 given at init).
    /// - Throws: when the file could not be read, or `CancellationError` after `cancel()`.
    func checksum(_ index: Int) async throws -> (checksum: String, stamp: FileStamp?) {
        let checksum = try await digests[index].value
        return (checksum, lock.withLock { stamps[index] })
    }

    /// Stops the threads after the file each is reading (the run failed, or is done).
    func cancel() { for digest in digests { digest.cancel() } }
}
