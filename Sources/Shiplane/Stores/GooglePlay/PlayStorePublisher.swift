import Foundation

/// Uploads an Android App Bundle to Google Play through one edit: open (or resume) the edit,
/// upload the bundle, set the track's release, commit. An edit is private until committed.
struct PlayStorePublisher: Sendable {
    let client: GooglePlayClient
    let state: StoreResumeState
    let log: @Sendable (String) -> Void

    /// The record that lets a re-run find the edit this package's last run left open.
    struct EditRecord: Codable { var editID: String; var packageName: String }

    var recordName: String { "play-\(client.packageName)" }

    // MARK: - Preflight

    /// Opens the edit the upload will use, or resumes the one `start` carries on (the contract's
    /// `uploadStart`: the only place that decides on earlier work); every problem at once. An
    /// edit this opened is deleted again when preflight fails; one `start` replaces is deleted
    /// when the upload begins.
    /// - Throws: `StorePreflightError`.
    func preflight(_ request: PlayStoreRequest, manifest: AndroidBundleManifest, start: StoreUploadStart,
                   problems known: [any Error]) async throws -> PlayStorePlan {
        var problems = known
        if case .unchanged(let earlier) = start {
            guard problems.isEmpty else { throw StorePreflightError(target: "Google Play", problems: problems) }
            return PlayStorePlan(manifest: manifest, packageName: client.packageName, editID: "", editExpiry: nil, createdEdit: false,
                                 uploadedVersionCode: manifest.versionCode, sha256: "", unchanged: earlier)
        }
        let editID: String
        let expiry: String?
        var created = false
        var replaced: String?
        if case .replace(let earlier) = start { replaced = earlier.id }
        do {
            if case .carryOn(let earlier) = start, let found = try await client.edit(earlier.id) {
                log("resuming edit \(earlier.id), left open by an earlier run")
                editID = earlier.id
                expiry = found.expiryTimeSeconds
            } else {
                let edit = try await client.openEdit()
                editID = edit.id
                expiry = edit.expiryTimeSeconds
                created = true
            }
        } catch {
            throw StorePreflightError(target: "Google Play", problems: problems + [error])
        }
        var uploaded: Int64?
        var sha256 = ""
        do {
            let bundles = created ? [] : try await client.bundles(editID: editID)
            if !bundles.isEmpty {
                sha256 = try request.sha256 ?? FileDigest.sha256(of: request.bundle)
                uploaded = bundles.first { $0.sha256?.lowercased() == sha256 }?.versionCode
            }
            if uploaded == nil, let code = manifest.versionCode, try await trackCodes(editID: editID, created: created).contains(code) {
                problems.append(ShiplaneError("version code \(code) is already in a release on Google Play",
                                              suggestion: "bump versionCode (shiplane's incrementBuildNumber) and build the bundle again"))
            }
        } catch {
            problems.append(error)
        }
        guard problems.isEmpty else {
            if created { try? await client.deleteEdit(editID) }
            throw StorePreflightError(target: "Google Play", problems: problems)
        }
        return PlayStorePlan(manifest: manifest, packageName: client.packageName, editID: editID, editExpiry: expiry, createdEdit: created,
                             uploadedVersionCode: uploaded, sha256: sha256, replacedEdit: replaced)
    }

    /// The version codes on the tracks as the edit sees them: a new edit sees the committed
    /// tracks, which the earlier-upload lookup of this step read already (`StoreReadMemo`).
    private func trackCodes(editID: String, created: Bool) async throws -> Set<Int64> {
        guard created else { return try await client.versionCodesInTracks(editID: editID) }
        return try await client.memo.value(GooglePlayClient.trackCodesMemo) { try await client.versionCodesInTracks(editID: editID) }
    }

    // MARK: - Publish

    /// Uploads (unless the edit has the bundle), sets the track and commits; returns the version code.
    /// `onCommitted` runs once the edit is committed (the release is then out and stays).
    func publish(_ plan: PlayStorePlan, request: PlayStoreRequest, onCommitted: @Sendable () -> Void) async throws -> Int64 {
        // An edit to replace was deleted before this, as a recorded effect (`GooglePlayStore.send`).
        try state.write(EditRecord(editID: plan.editID, packageName: plan.packageName), name: recordName)
        let versionCode: Int64
        if let code = plan.uploadedVersionCode {
            log("the edit already has this bundle (version code \(code)): not uploading it again")
            versionCode = code
        } else {
            let size = plan.manifest.fileSize
            log("uploading \(URL(fileURLWithPath: request.bundle).lastPathComponent) (\(ByteCountText.file(size)))" +
                (size > request.resumableThreshold ? " as a resumable upload" : ""))
            let log = self.log
            let bundle = try await client.uploadBundle(editID: plan.editID, path: request.bundle, size: size,
                                                       resumableThreshold: request.resumableThreshold, chunkSize: request.chunkSize) { sent in
                if size > request.resumableThreshold, sent < size {
                    log("\(ByteCountText.file(sent)) of \(ByteCountText.file(size)) sent, \(Int((Double(sent) * 100 / Double(max(1, size))).rounded()))%")
                }
            }
            guard let code = bundle.versionCode else {
                throw StoreAPIError(service: GooglePlayClient.service, operation: "upload the bundle", status: 200,
                                    details: ["the answer has no versionCode"])
            }
            versionCode = code
        }
        let release = PlayRelease(name: request.releaseName, versionCodes: [versionCode], status: request.status,
                                  userFraction: request.rolloutFraction, notes: request.releaseNotes)
        try await client.updateTrack(editID: plan.editID, track: request.track, release: release)
        try await client.commitEdit(plan.editID, review: request.review)
        onCommitted()
        state.remove(name: recordName)
        log("committed: version code \(versionCode) on \(request.track) (\(request.status.rawValue))")
        return versionCode
    }

    /// Deletes the edit and forgets it (rollback, and the end of a dry run).
    func discard(editID: String) async throws {
        try await client.deleteEdit(editID)
        if state.read(EditRecord.self, name: recordName)?.editID == editID { state.remove(name: recordName) }
    }
}
