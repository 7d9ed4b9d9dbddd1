/// The store upload actions as `shiplane actions` and `shiplane action NAME` describe them.
public enum StoreActionCatalog {
    public static let stores: [ActionDescription] = [
        ActionDescription(
            name: "uploadToTestFlight", domain: "Stores",
            summary: "Upload an IPA to App Store Connect from any machine (no Xcode, no Transporter), wait for processing, set What to Test and add the build to beta groups",
            signature: "try await lane.uploadToTestFlight(ipa: String, whatsNew: String? = nil, groups: [String] = [], locale: String = \"en-US\", submitForBetaReview: Bool = false, usesNonExemptEncryption: Bool? = nil, processingTimeout: Double = 3600, pollInterval: Double = 30, uploadConcurrency: Int = 4, expectedVersion: String? = nil, expectedBuildNumber: String? = nil) -> TestFlightBuild",
            parameters: [
                .init(name: "ipa", type: "String", defaultValue: nil, help: "the IPA; bundle ID, version and build number are read from its Payload/*.app/Info.plist"),
                .init(name: "whatsNew", type: "String?", defaultValue: "nil", help: "What to Test, at most 4000 characters"),
                .init(name: "groups", type: "[String]", defaultValue: "[]", help: "beta group names to add the build to (checked in preflight)"),
                .init(name: "locale", type: "String", defaultValue: "\"en-US\"", help: "the language of What to Test"),
                .init(name: "submitForBetaReview", type: "Bool", defaultValue: "false", help: "submit the build for external beta review"),
                .init(name: "usesNonExemptEncryption", type: "Bool?", defaultValue: "nil", help: "export compliance answer; nil leaves it to Info.plist (ITSAppUsesNonExemptEncryption)"),
                .init(name: "processingTimeout", type: "Double", defaultValue: "3600", help: "seconds to wait for Apple's processing at most"),
                .init(name: "pollInterval", type: "Double", defaultValue: "30", help: "seconds between two looks at the processing state"),
                .init(name: "uploadConcurrency", type: "Int", defaultValue: "4", help: "upload parts sent at once"),
                .init(name: "expectedVersion", type: "String?", defaultValue: "nil", help: "refuse an IPA of another version in preflight (a stale artifact)"),
                .init(name: "expectedBuildNumber", type: "String?", defaultValue: "nil", help: "refuse an IPA of another build number in preflight"),
                .init(name: "credentials", type: "environment", defaultValue: nil, help: "APP_STORE_CONNECT_KEY_ID, APP_STORE_CONNECT_ISSUER_ID, APP_STORE_CONNECT_PRIVATE_KEY (PEM) or APP_STORE_CONNECT_PRIVATE_KEY_PATH; APP_STORE_CONNECT_API_URL"),
            ],
            example: #"let build = try await lane.uploadToTestFlight(ipa: "build/App.ipa", whatsNew: notes, groups: ["QA"])"#,
            dryRun: "preflight reads only (key, IPA, app, groups, earlier uploads), then says what would be uploaded where",
            rollback: "deletes the build upload this run made while Apple has not accepted it; an accepted build cannot be deleted and is left (rollback says so)"
        ),
        ActionDescription(
            name: "uploadToPlayStore", domain: "Stores",
            summary: "Upload an Android App Bundle to a Google Play track through one edit (resumable for large bundles) and commit the release",
            signature: "try await lane.uploadToPlayStore(bundle: String, packageName: String? = nil, track: String = \"internal\", releaseNotes: [String: String] = [:], status: PlayReleaseStatus = .completed, rolloutFraction: Double? = nil, releaseName: String? = nil) -> Int64",
            parameters: [
                .init(name: "bundle", type: "String", defaultValue: nil, help: "the .aab; package name and version code are read from its manifest"),
                .init(name: "packageName", type: "String?", defaultValue: "the bundle's", help: "the app's package name; must match the bundle's"),
                .init(name: "track", type: "String", defaultValue: "\"internal\"", help: "internal, alpha, beta, production or a custom track"),
                .init(name: "releaseNotes", type: "[String: String]", defaultValue: "[:]", help: "notes per language tag (\"en-US\"), at most 500 characters each"),
                .init(name: "status", type: "PlayReleaseStatus", defaultValue: ".completed", help: ".draft, .inProgress (staged, needs rolloutFraction), .halted, .completed"),
                .init(name: "rolloutFraction", type: "Double?", defaultValue: "nil", help: "share of users for a staged rollout, 0 < f < 1"),
                .init(name: "releaseName", type: "String?", defaultValue: "nil", help: "the release's name in Play Console"),
                .init(name: "credentials", type: "environment", defaultValue: nil, help: "GOOGLE_PLAY_SERVICE_ACCOUNT_JSON (path or JSON); GOOGLE_PLAY_API_URL"),
            ],
            example: #"try await lane.uploadToPlayStore(bundle: "build/app.aab", track: "internal", releaseNotes: ["en-US": notes])"#,
            dryRun: "preflight (token, app, version code), opening a private edit that is deleted again; says what would be uploaded where",
            rollback: "deletes the edit this run opened before it was committed; a committed release stays (rollback says so)"
        ),
    ]
}
