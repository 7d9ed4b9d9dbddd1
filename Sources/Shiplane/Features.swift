/// Shiplane's features, listed once: the runner, the record and the catalog name none of them.
///
/// A feature's folder declares its actions and its effect types; adding one means adding it here
/// (goreleaser's pipeline list works the same way).
enum Features {
    /// Every built-in action, in the order a release lane uses them.
    static var actions: [any DocumentedAction.Type] {
        let announcers: [any DocumentedAction.Type] = Announcers.all.map { $0 }
        let forges: [any DocumentedAction.Type] = Forges.all.map { $0.action }
        let stores: [any DocumentedAction.Type] = Stores.all.flatMap { $0.actions }
        return [
        EnsureGitBranch.self, EnsureGitStatusClean.self, CurrentVersion.self, BumpVersion.self, UpdateLockFiles.self, UpdateDependencyRequirements.self, IncrementBuildNumber.self, CommitVersionBump.self, GitCommit.self, AddGitTag.self, GitTagExists.self, LastGitTag.self, ReleaseFromTag.self, NumberOfCommits.self, Push.self, Changelog.self, WriteChangelog.self, RenderStoreNotes.self, PublishRelease.self] + forges + [Upload.self, Archive.self, WriteChecksums.self, MakeSBOM.self, MakeProvenance.self, CopyToDirectory.self, Webhook.self] + announcers + [EnsureTool.self, Sh.self] + stores + [
        RegisterArtifact.self,
        SignFiles.self,
        UploadToS3.self,
        PublishHomebrewFormula.self,
        PushImage.self,
        PublishToSwiftRegistry.self,
        PushPodspec.self,
        MatchSigning.self,
        RecordPart.self,
        ]
    }

    /// Every built-in effect type, so a record written by any process reads back in any other.
    static let effects: [any Effect.Type] = Forges.all.flatMap { $0.effects } + [
        FileWritten.self, FoldersCreated.self,
        CommitMade.self, TagWritten.self, RefsPushed.self, ReleaseReplayed.self,
        FilesUploaded.self,
    ] + Stores.all.flatMap { $0.effects } + [
        MessageSent.self, SlackMessagePosted.self, EmailSent.self, DiscordMessagePosted.self,
        S3ObjectUploaded.self,
        HomebrewFormulaPushed.self, HomebrewPullRequestOpened.self,
        ImageTagPushed.self,
        SwiftPackageReleasePublished.self,
        PodVersionPushed.self,
        GitHubAttestationUploaded.self,
        SigningCertificateCreated.self, ProvisioningProfileCreated.self, BundleIDRegistered.self, SigningChangeStays.self, MatchStoreFileRemoved.self, MatchStorePushed.self, MatchS3ObjectWritten.self, MatchGCSObjectWritten.self, MatchS3ObjectRemoved.self, MatchGCSObjectRemoved.self, MatchKeyKept.self,
        InProcessUndo.self,
    ]
}
