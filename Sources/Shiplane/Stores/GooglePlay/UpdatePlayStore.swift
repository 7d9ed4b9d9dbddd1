import Foundation

/// A change to a track's staged rollout, made without uploading anything.
public enum PlayRolloutChange: Sendable, Equatable {
    /// Sets the staged rollout's share of users (0 < fraction < 1); with `promoteFrom`, promotes as a staged rollout.
    case fraction(Double)
    /// Stops a staged rollout (inProgress → halted).
    case halt
    /// Restarts a halted rollout (halted → inProgress).
    case resume
    /// Rolls the staged release out to everyone (→ completed).
    case complete
}

/// What `updatePlayStore` changes on Google Play: the listing from supply's folder and a track's releases.
package struct PlayStoreUpdate: Sendable {
    /// The app's package name.
    package var packageName: String
    /// supply's metadata folder; nil leaves the listing, images and release notes alone.
    package var metadata: String?
    /// The track whose releases change; nil leaves the tracks alone.
    package var track: String?
    /// Promote this track's release (completed, else staged) to `track`.
    package var promoteFrom: String?
    /// The release on `track` to change (its notes come from `changelogs/<versionCode>.txt`); by default the staged one, else the completed one.
    package var versionCode: Int64?
    /// A staged rollout change.
    package var rollout: PlayRolloutChange?
    /// The in-app update priority (0–5) of the release written.
    package var inAppUpdatePriority: Int?
    /// Older version codes kept in the release written (Google serves them beside the new one).
    package var retainVersionCodes: [Int64]
    /// How the commit treats Google's review.
    package var review: PlayReviewOptions

    /// Creates the update.
    package init(packageName: String, metadata: String? = "fastlane/metadata/android", track: String? = nil, promoteFrom: String? = nil,
                versionCode: Int64? = nil, rollout: PlayRolloutChange? = nil, inAppUpdatePriority: Int? = nil,
                retainVersionCodes: [Int64] = [], review: PlayReviewOptions = PlayReviewOptions()) {
        self.packageName = packageName
        self.metadata = metadata
        self.track = track
        self.promoteFrom = promoteFrom
        self.versionCode = versionCode
        self.rollout = rollout
        self.inAppUpdatePriority = inAppUpdatePriority
        self.retainVersionCodes = retainVersionCodes
        self.review = review
    }

    /// The problems in the update itself, before anything is read.
    func problems() -> [String] {
        var found: [String] = []
        if packageName.trimmingCharacters(in: .whitespaces).isEmpty { found.append("packageName is empty") }
        if let track, track.trimmingCharacters(in: .whitespaces).isEmpty { found.append("the track is empty (internal, alpha, beta, production or a custom track)") }
        if track == nil && (promoteFrom != nil || rollout != nil || inAppUpdatePriority != nil || !retainVersionCodes.isEmpty || versionCode != nil) {
            found.append("promoteFrom, rollout, versionCode, inAppUpdatePriority and retainVersionCodes need a track")
        }
        if let promoteFrom, promoteFrom == track { found.append("promoteFrom and track are both \(promoteFrom)") }
        if case .fraction(let fraction) = rollout, !(fraction > 0 && fraction < 1) { found.append("rollout fraction \(fraction) is not between 0 and 1 (exclusive)") }
        if promoteFrom != nil, rollout == .halt || rollout == .resume { found.append("a promotion cannot halt or resume; use .fraction or .complete") }
        if let priority = inAppUpdatePriority, !(0...5).contains(priority) { found.append("inAppUpdatePriority \(priority) is not between 0 and 5") }
        return found
    }
}

/// Updates a Google Play app from fastlane supply's metadata folder and changes a track's
/// releases, all in one edit committed once: listing texts (only the members that differ),
/// images (compared by SHA-256 with what Play has; a type that differs is deleted and uploaded
/// again in order), release notes from `changelogs/<versionCode>.txt`, and without uploading a
/// bundle: promoting a release between tracks, a staged rollout's fraction, halt, resume and
/// complete, in-app update priority and version codes kept.
///
/// The dry run opens an edit, prints the difference field by field and deletes the edit. Every
/// write is a recorded effect with the value it replaced; rollback before the commit deletes the
/// edit (nothing reaches Play). A re-run after a kill resumes the edit, so nothing is uploaded
/// twice; with nothing to change no edit is committed.
package struct UpdatePlayStore: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "updatePlayStore"
    /// What to change.
    package var update: PlayStoreUpdate

    /// Creates the action for `update`.
    package init(_ update: PlayStoreUpdate) {
        self.update = update
    }

    /// The package, the folder, the track and its changes.
    package var options: [StepOption] {
        var shown = [StepOption("packageName", update.packageName)]
        if let metadata = update.metadata { shown.append(StepOption("metadata", metadata)) }
        if let track = update.track { shown.append(StepOption("track", track)) }
        if let from = update.promoteFrom { shown.append(StepOption("promoteFrom", from)) }
        if let code = update.versionCode { shown.append(StepOption("versionCode", String(code))) }
        if let rollout = update.rollout { shown.append(StepOption("rollout", PlayStoreUpdate.describe(rollout))) }
        if let priority = update.inAppUpdatePriority { shown.append(StepOption("inAppUpdatePriority", String(priority))) }
        if !update.retainVersionCodes.isEmpty { shown.append(StepOption("retainVersionCodes", update.retainVersionCodes.map(String.init).joined(separator: ", "))) }
        if update.review.changesNotSentForReview { shown.append(StepOption("changesNotSentForReview", "true")) }
        if update.review.cancelChangesInReview { shown.append(StepOption("cancelChangesInReview", "true")) }
        return shown
    }


    /// Changes the listing and the track through the `Store` contract (`GooglePlayStore.updateListing`).
    package func run(in step: StepContext) async throws -> Int {
        try await GooglePlayStore.updateListing(update, in: step)
    }
}

extension GooglePlayStore {
    /// Updates the listing from supply's folder and changes a track's releases, in one edit
    /// committed once (`lane.updatePlayStore`); returns the number of writes made (in a dry run,
    /// that would be made). The edit is resumed when an earlier run left it open.
    /// - Throws: `StorePreflightError` before anything is written; store and transport errors after.
    package static func updateListing(_ update: PlayStoreUpdate, in step: StepContext) async throws -> Int {
        let lane = step.lane
        var problems: [any Error] = update.problems().map { ShiplaneError($0) }
        var folder: PlayMetadataFolder?
        if let metadata = update.metadata {
            do { folder = try PlayMetadataFolder.read(step.resolve(metadata), display: metadata) } catch { problems.append(error) }
        }
        let account = GooglePlayStore.credentials(from: lane.environment.variables, workingDirectory: lane.workingDirectory, problems: &problems)
        guard let account, problems.isEmpty else { throw StorePreflightError(target: "Google Play", problems: problems) }
        let store = GooglePlayStore.connect(account, app: update.packageName, variables: lane.environment.variables,
                                            transport: step.httpTransport(), now: lane.state.now)
        let client = store.client
        let state = StoreResumeState(lane: lane)
        let recordName = "play-listing-\(update.packageName)"
        let editID: String
        let expiry: String?
        var created = false
        do {
            try await store.checkAccess()
            if let record = state.read(PlayStorePublisher.EditRecord.self, name: recordName), record.packageName == update.packageName,
               let found = try await client.edit(record.editID) {
                step.log("resuming edit \(record.editID), left open by an earlier run")
                editID = record.editID
                expiry = found.expiryTimeSeconds
            } else {
                let edit = try await client.openEdit()
                editID = edit.id
                expiry = edit.expiryTimeSeconds
                created = true
            }
        } catch {
            throw StorePreflightError(target: "Google Play", problems: [error])
        }
        let writes: [PlayStoreUpdate.Write]
        do {
            writes = try await update.plan(client: client, editID: editID, folder: folder)
        } catch {
            if created { try? await client.deleteEdit(editID) }
            throw StorePreflightError(target: "Google Play", problems: [error])
        }
        let lines = writes.flatMap { PlayStoreUpdate.describe($0, display: { lane.displayPath($0) }) }
        for line in lines { step.log(line) }
        if writes.isEmpty && created {
            // Nothing differs: the edit is deleted, nothing is committed.
            try await client.deleteEdit(editID)
            if state.read(PlayStorePublisher.EditRecord.self, name: recordName)?.editID == editID { state.remove(name: recordName) }
            step.note("Google Play already has this listing and these releases: nothing to change")
            return 0
        }
        if writes.isEmpty {
            step.log("the edit \(editID) an earlier run left already holds every change: " + (step.isDryRun ? "a real run commits it" : "committing it"))
        }
        if step.isDryRun {
            if created { try await client.deleteEdit(editID) }
            if writes.isEmpty {
                step.note("would commit the edit \(editID) an earlier run left, which holds every change")
                return 0
            }
            step.note("would make \(writes.count) change\(writes.count == 1 ? "" : "s") on Google Play in one edit, each listed above")
            return writes.count
        }
        var handles: [EffectHandle?] = []
        let opened = try step.record(PlayEditOpened(api: client.apiBaseURL, packageName: update.packageName, editID: editID,
                                                    expiryTimeSeconds: expiry, stateFolder: state.folder, stateName: recordName),
                                     "delete Google Play edit \(editID)")
        step.done(opened)
        handles.append(opened)
        try state.write(PlayStorePublisher.EditRecord(editID: editID, packageName: update.packageName), name: recordName)
        for write in writes {
            handles.append(try await update.perform(write, client: client, editID: editID, step: step))
        }
        try await client.commitEdit(editID, review: update.review)
        for handle in handles {
            step.keep(handle, "the Google Play edit \(editID) was committed: the listing and releases stay (change them again in Play Console or with another run)")
        }
        state.remove(name: recordName)
        step.note("committed \(writes.count) change\(writes.count == 1 ? "" : "s") to \(update.packageName) on Google Play")
        return writes.count
    }


    /// Changes a track's releases without uploading (promotion, staged rollout, halt, resume,
    /// complete), the listing left alone: `updateListing` with no metadata folder.
    /// - Throws: `StorePreflightError` before anything is written; store and transport errors after.
    package static func submit(_ change: PlayTrackChange, in step: StepContext) async throws -> Int {
        try await updateListing(change.update, in: step)
    }
}

/// A change to a track's releases on Google Play, made without uploading or touching the listing:
/// what `GooglePlayStore.submit` takes.
package struct PlayTrackChange: Sendable {
    /// The app's package name.
    package var packageName: String
    /// The track whose releases change.
    package var track: String
    /// Promote this track's release (completed, else staged) to `track`.
    package var promoteFrom: String?
    /// The release on `track` to change; by default the staged one, else the completed one.
    package var versionCode: Int64?
    /// A staged rollout change.
    package var rollout: PlayRolloutChange?
    /// How the commit treats Google's review.
    package var review: PlayReviewOptions

    /// Creates the change.
    package init(packageName: String, track: String, promoteFrom: String? = nil, versionCode: Int64? = nil, rollout: PlayRolloutChange? = nil,
                review: PlayReviewOptions = PlayReviewOptions()) {
        self.packageName = packageName
        self.track = track
        self.promoteFrom = promoteFrom
        self.versionCode = versionCode
        self.rollout = rollout
        self.review = review
    }

    /// The same change as an update with no metadata folder.
    var update: PlayStoreUpdate {
        PlayStoreUpdate(packageName: packageName, metadata: nil, track: track, promoteFrom: promoteFrom, versionCode: versionCode,
                        rollout: rollout, review: review)
    }
}

extension PlayStoreUpdate {
    static func describe(_ rollout: PlayRolloutChange) -> String {
        switch rollout {
        case .fraction(let fraction): "fraction \(fraction)"
        case .halt: "halt"
        case .resume: "resume"
        case .complete: "complete"
        }
    }

    /// One write the plan makes, in order.
    enum Write {
        case listing(language: String, fields: [String: String], before: [String: String]?)
        case deleteImage(language: String, type: String, image: PlayImage)
        case uploadImage(language: String, type: String, path: String, sha256: String)
        case track(name: String, releases: [[String: Any]], before: [[String: Any]])
    }


    // MARK: - Plan

    func plan(client: GooglePlayClient, editID: String, folder: PlayMetadataFolder?) async throws -> [Write] {
        var writes: [Write] = []
        if let folder {
            let listings = try await client.listings(editID: editID)
            for locale in folder.locales {
                let current = listings[locale.language]
                let changed = locale.texts.filter { current?[$0.key] ?? "" != $0.value }
                if !changed.isEmpty { writes.append(.listing(language: locale.language, fields: changed, before: current)) }
            }
            for locale in folder.locales {
                for type in locale.images.keys.sorted() {
                    let files = locale.images[type] ?? []
                    let local = try files.map { try FileDigest.sha256(of: $0) }
                    let remote = try await client.images(editID: editID, language: locale.language, type: type)
                    let remoteSums = remote.map { $0.sha256?.lowercased() ?? "" }
                    if remoteSums == local { continue }
                    // A prefix is what a killed run left: only the rest is uploaded.
                    let keep = remoteSums.count < local.count && Array(local.prefix(remoteSums.count)) == remoteSums ? remoteSums.count : 0
                    if keep == 0 {
                        writes += remote.map { .deleteImage(language: locale.language, type: type, image: $0) }
                    }
                    for index in keep..<files.count {
                        writes.append(.uploadImage(language: locale.language, type: type, path: files[index], sha256: local[index]))
                    }
                }
            }
        }
        if let track = self.track {
            let current = try await client.trackJSON(editID: editID, track: track)?["releases"] as? [[String: Any]] ?? []
            var source: [[String: Any]]?
            if let from = self.promoteFrom {
                guard let releases = try await client.trackJSON(editID: editID, track: from)?["releases"] as? [[String: Any]] else {
                    throw ShiplaneError("Google Play has no track \(from) for \(self.packageName)", suggestion: "promoteFrom takes internal, alpha, beta, production or a custom track that has a release")
                }
                source = releases
            }
            let planned = try plannedReleases(current: current, source: source, folder: folder)
            if !Self.same(planned, current) { writes.append(.track(name: track, releases: planned, before: current)) }
        }
        return writes
    }

    static func codes(_ release: [String: Any]) -> [Int64] { (release["versionCodes"] as? [String] ?? []).compactMap { Int64($0) } }
    static func status(_ release: [String: Any]) -> String { release["status"] as? String ?? "" }

    /// The track's releases after the change.
    func plannedReleases(current: [[String: Any]], source: [[String: Any]]?, folder: PlayMetadataFolder?) throws -> [[String: Any]] {
        let track = self.track ?? ""
        var releases = current
        var subject: Int
        if let source, let from = self.promoteFrom {
            guard var release = source.first(where: { Self.status($0) == "completed" }) ?? source.first(where: { ["inProgress", "halted"].contains(Self.status($0)) }) else {
                throw ShiplaneError("track \(from) has no completed or staged release to promote", suggestion: "upload to \(from) first, or promote from another track")
            }
            if let code = self.versionCode, !Self.codes(release).contains(code) {
                throw ShiplaneError("the release on \(from) has version codes \(Self.codes(release).map(String.init).joined(separator: ", ")), not \(code)")
            }
            release.removeValue(forKey: "userFraction")
            if case .fraction(let fraction) = self.rollout {
                release["status"] = "inProgress"
                release["userFraction"] = fraction
                releases = releases.filter { Self.status($0) == "completed" } + [release]
            } else {
                release["status"] = "completed"
                releases = [release]
            }
            subject = releases.count - 1
        } else {
            let staged = releases.firstIndex { ["inProgress", "halted"].contains(Self.status($0)) }
            if let code = self.versionCode {
                guard let index = releases.firstIndex(where: { Self.codes($0).contains(code) }) else {
                    throw ShiplaneError("track \(track) has no release with version code \(code)", suggestion: "upload it first (uploadToPlayStore), or promote it with promoteFrom")
                }
                subject = index
            } else if let staged {
                subject = staged
            } else if let completed = releases.firstIndex(where: { Self.status($0) == "completed" }) {
                subject = completed
            } else if self.rollout == nil && self.inAppUpdatePriority == nil && self.retainVersionCodes.isEmpty && folder == nil {
                return current
            } else {
                throw ShiplaneError("track \(track) has no release to change", suggestion: "upload to \(track) first, or promote a release with promoteFrom")
            }
            if let rollout = self.rollout {
                guard let staged else {
                    throw ShiplaneError("track \(track) has no staged rollout to \(Self.describe(rollout))", suggestion: "a staged rollout is a release with status inProgress or halted and a userFraction")
                }
                subject = staged
                let status = Self.status(releases[staged])
                switch rollout {
                case .fraction(let fraction): releases[staged]["userFraction"] = fraction
                case .halt:
                    guard status == "inProgress" else { throw ShiplaneError("the staged rollout on \(track) is \(status), so it cannot be halted") }
                    releases[staged]["status"] = "halted"
                case .resume:
                    guard status == "halted" else { throw ShiplaneError("the staged rollout on \(track) is \(status), so it cannot be resumed") }
                    releases[staged]["status"] = "inProgress"
                case .complete:
                    var done = releases[staged]
                    done["status"] = "completed"
                    done.removeValue(forKey: "userFraction")
                    releases = releases.enumerated().filter { $0.offset != staged && Self.status($0.element) != "completed" }.map(\.element) + [done]
                    subject = releases.count - 1
                }
            }
        }
        if !self.retainVersionCodes.isEmpty {
            let codes = Self.codes(releases[subject])
            releases[subject]["versionCodes"] = (codes + self.retainVersionCodes.filter { !codes.contains($0) }).sorted().map(String.init)
        }
        if let priority = self.inAppUpdatePriority { releases[subject]["inAppUpdatePriority"] = priority }
        if let folder, let newest = Self.codes(releases[subject]).max() {
            let notes = folder.releaseNotes(versionCode: self.versionCode ?? newest)
            if !notes.isEmpty {
                releases[subject]["releaseNotes"] = notes.keys.sorted().map { ["language": $0, "text": notes[$0] ?? ""] }
            }
        }
        return releases
    }

    static func json(_ value: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    static func same(_ one: [[String: Any]], _ two: [[String: Any]]) -> Bool { json(one) == json(two) }

    // MARK: - Writes

    func perform(_ write: Write, client: GooglePlayClient, editID: String, step: StepContext) async throws -> EffectHandle? {
        let base = PlayEditChanged(api: client.apiBaseURL, packageName: self.packageName, editID: editID, change: .listing)
        switch write {
        case .listing(let language, let fields, let before):
            var effect = base
            effect.language = language
            effect.before = before.map { Self.json($0) }
            let handle = try step.record(effect, "put back the \(language) store listing in edit \(editID)")
            // A language the app has no listing in yet is created with listings.update (patch
            // changes only a listing that exists, as Google describes it, and as supply does).
            if before == nil {
                try await client.replaceListing(editID: editID, language: language, fields: fields)
            } else {
                try await client.patchListing(editID: editID, language: language, fields: fields)
            }
            step.done(handle)
            return handle
        case .deleteImage(let language, let type, let image):
            var effect = base
            effect.change = .imageDeleted
            (effect.language, effect.imageType, effect.imageID, effect.sha256) = (language, type, image.id, image.sha256)
            let handle = try step.record(effect, "\(language) \(type) image \(image.id ?? "") comes back when edit \(editID) is deleted")
            try await client.deleteImage(editID: editID, language: language, type: type, imageID: image.id ?? "")
            step.done(handle)
            return handle
        case .uploadImage(let language, let type, let path, let sha256):
            var effect = base
            effect.change = .imageUploaded
            (effect.language, effect.imageType, effect.sha256) = (language, type, sha256)
            let handle = try step.record(effect, "delete the \(language) \(type) image uploaded to edit \(editID)")
            let image = try await client.uploadImage(editID: editID, language: language, type: type, path: path)
            effect.imageID = image.id
            step.done(handle, effect)
            return handle
        case .track(let name, let releases, let before):
            var effect = base
            effect.change = .track
            (effect.track, effect.before) = (name, Self.json(before))
            let handle = try step.record(effect, "put back track \(name)'s releases in edit \(editID)")
            try await client.putTrack(editID: editID, track: name, releases: releases)
            step.done(handle)
            return handle
        }
    }

    // MARK: - Diff

    static func describe(_ write: Write, display: (String) -> String) -> [String] {
        switch write {
        case .listing(let language, let fields, let before):
            return fields.keys.sorted().map { key in
                "\(language) \(key): \(quote(before?[key])) → \(quote(fields[key]))"
            }
        case .deleteImage(let language, let type, let image):
            return ["\(language) \(type): delete image \(image.id ?? "") (sha256 \((image.sha256 ?? "").prefix(12)))"]
        case .uploadImage(let language, let type, let path, let sha256):
            return ["\(language) \(type): upload \(display(path)) (sha256 \(sha256.prefix(12)))"]
        case .track(let name, let releases, let before):
            return ["track \(name): \(summary(before)) → \(summary(releases))"]
        }
    }

    static func quote(_ text: String?) -> String {
        guard let text else { return "(none)" }
        let line = text.replacingOccurrences(of: "\n", with: "⏎")
        return "\"" + (line.count > 60 ? String(line.prefix(59)) + "…" : line) + "\""
    }

    static func summary(_ releases: [[String: Any]]) -> String {
        guard !releases.isEmpty else { return "(no releases)" }
        return releases.map { release in
            var text = codes(release).map(String.init).joined(separator: "+") + " " + status(release)
            if let fraction = release["userFraction"] as? Double { text += " \(Int((fraction * 100).rounded()))%" }
            if let priority = release["inAppUpdatePriority"] as? Int { text += " priority \(priority)" }
            if let notes = release["releaseNotes"] as? [[String: Any]], !notes.isEmpty {
                text += " notes " + notes.compactMap { $0["language"] as? String }.joined(separator: ",")
            }
            return text
        }.joined(separator: ", ")
    }
}

extension LaneContext {
    /// Updates the Google Play listing from fastlane supply's metadata folder and changes a
    /// track's releases without uploading, in one edit committed once; returns the number of changes.
    @discardableResult
    public func updatePlayStore(
        packageName: String, metadata: String? = "fastlane/metadata/android", track: String? = nil, promoteFrom: String? = nil,
        versionCode: Int64? = nil, rollout: PlayRolloutChange? = nil, inAppUpdatePriority: Int? = nil, retainVersionCodes: [Int64] = [],
        changesNotSentForReview: Bool = false, cancelChangesInReview: Bool = false,
        file: String = #fileID, line: Int = #line
    ) async throws -> Int {
        try await run(UpdatePlayStore(PlayStoreUpdate(
            packageName: packageName, metadata: metadata, track: track, promoteFrom: promoteFrom, versionCode: versionCode, rollout: rollout,
            inAppUpdatePriority: inAppUpdatePriority, retainVersionCodes: retainVersionCodes,
            review: PlayReviewOptions(changesNotSentForReview: changesNotSentForReview, cancelChangesInReview: cancelChangesInReview))),
            file: file, line: line)
    }
}

extension UpdatePlayStore: DocumentedAction {
    /// How `lane.updatePlayStore` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Stores",
        summary: "Update a Google Play listing from fastlane supply's folder (texts, images by SHA-256, changelogs) and change a track's releases without uploading (promote, rollout fraction, halt, resume, complete, in-app update priority, kept version codes), in one edit committed once. Credentials: GOOGLE_PLAY_SERVICE_ACCOUNT_JSON.",
        signature: "try await lane.updatePlayStore(packageName: String, metadata: String? = \"fastlane/metadata/android\", track: String? = nil, promoteFrom: String? = nil, versionCode: Int64? = nil, rollout: PlayRolloutChange? = nil, inAppUpdatePriority: Int? = nil, retainVersionCodes: [Int64] = [], changesNotSentForReview: Bool = false, cancelChangesInReview: Bool = false) -> Int",
        parameters: [
            .init(name: "packageName", type: "String", defaultValue: nil, help: "the app's package name"),
            .init(name: "metadata", type: "String?", defaultValue: "\"fastlane/metadata/android\"", help: "supply's folder: <locale>/title.txt, short_description.txt, full_description.txt, video.txt, images/, changelogs/<versionCode>.txt; nil leaves the listing alone"),
            .init(name: "track", type: "String?", defaultValue: "nil", help: "the track whose releases change"),
            .init(name: "promoteFrom", type: "String?", defaultValue: "nil", help: "promote this track's release (completed, else staged) to track"),
            .init(name: "versionCode", type: "Int64?", defaultValue: "nil", help: "the release to change, and the changelog used; by default the staged release, else the completed one"),
            .init(name: "rollout", type: "PlayRolloutChange?", defaultValue: "nil", help: ".fraction(0.2), .halt, .resume, .complete"),
            .init(name: "inAppUpdatePriority", type: "Int?", defaultValue: "nil", help: "0–5, set on the release written"),
            .init(name: "retainVersionCodes", type: "[Int64]", defaultValue: "[]", help: "older version codes kept in the release written"),
            .init(name: "changesNotSentForReview", type: "Bool", defaultValue: "false", help: "commit without sending for review"),
            .init(name: "cancelChangesInReview", type: "Bool", defaultValue: "false", help: "cancel changes already in review instead of failing"),
        ],
        example: #"try await lane.updatePlayStore(packageName: "com.acme.rocket", track: "production", promoteFrom: "beta", rollout: .fraction(0.1))"#,
        dryRun: "opens a private edit, prints every difference field by field (texts, images, releases) and deletes the edit",
        rollback: "before the commit: puts back each change and deletes the edit (nothing reaches Play); a committed edit stays (rollback says so)"
    )
}
