import Foundation
import Shiplane

/// Shiplane releases itself with its own lane: the version lives in the `ShiplaneVersion.current`
/// constant (what `shiplane --version` prints), the notes in CHANGELOG.md, the release in a tag,
/// and the prebuilt bundle (`Scripts/bundle`) on the GitHub release with its SBOM, its signed
/// provenance, and a SHA256SUMS signed with the project's OpenPGP release key (the key whose
/// public half the README's install snippet checks with `gpgv`).
///
/// The bundle's release needs two secrets: `SHIPLANE_GPG_KEY` (the release key, armored) and
/// `SHIPLANE_ATTESTATION_KEY` (the Ed25519 provenance key, PKCS#8 PEM). Both are checked first,
/// before the bundle's build and before anything changes: a missing one stops the run naming it
/// and how to set it. `--unsigned` releases without them, on purpose only (a fork, a test).
struct Release: Lane {
    static let summary = "Bump ShiplaneVersion.current, write CHANGELOG.md, build and check the bundle, commit, tag v<version>, SBOM, provenance, signed SHA256SUMS, push, publish the GitHub release with them"

    @Option(help: "major, minor, patch, auto (from the commits since the last release tag) or a version")
    var bump: VersionBump = .auto

    @Flag(help: "Push the release commit and its tag to origin, then publish the GitHub release with the bundle")
    var push = false

    @Flag(inversion: .prefixedNo, help: "Build the bundle (Scripts/bundle, a release build: 15-25 minutes on 2 cores) and check it before tagging (Scripts/bundle --check: a lane with a webhook from its interfaces alone, the glibc 2.31 floor, a run in a Debian 11 root, every README CI recipe in a Swift image root, and the end-to-end suites with the bundle's own binary)")
    var bundle = true

    @Flag(help: "Release the bundle without signatures: no SHA256SUMS.asc and no signed provenance (its SBOM and SHA256SUMS are still made); SHIPLANE_GPG_KEY and SHIPLANE_ATTESTATION_KEY are then not needed. For a fork or a test release only")
    var unsigned = false

    /// The keys the bundle's release signs with: each variable, what it signs, and how to make it.
    static let signingKeys: [(variable: String, signs: String, make: String)] = [
        ("SHIPLANE_GPG_KEY", "SHA256SUMS.asc, the OpenPGP signature the README's install snippet checks",
         "the release key's armored secret key (gpg --armor --export-secret-keys KEY)"),
        ("SHIPLANE_ATTESTATION_KEY", "the bundle's SLSA provenance",
         "the Ed25519 provenance key as PKCS#8 PEM (openssl genpkey -algorithm ed25519)"),
    ]

    func run(_ lane: LaneContext) async throws {
        // The keys first: a release that cannot be signed stops before the bundle's build
        // (15-25 minutes) and before anything changes, naming every key that is missing.
        if bundle && !unsigned {
            let missing = Self.signingKeys.filter { (lane.environment[$0.variable] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            if !missing.isEmpty {
                throw ShiplaneError(
                    "the release cannot be signed: " + missing.map { "\($0.variable) is not set (it signs \($0.signs))" }.joined(separator: "; "),
                    info: missing.map { (key: $0.variable, value: $0.make) },
                    suggestion: "set " + missing.map { "\($0.variable) to \($0.make)" }.joined(separator: " and ")
                        + ", as CI secrets or in a .env file; or pass --unsigned to release without signatures, or --no-bundle to release without the bundle")
            }
        } else if bundle {
            lane.log("--unsigned: the bundle is released without SHA256SUMS.asc and without provenance; `shiplane verify` and the README's install snippet cannot check it", level: .warning)
        }
        try lane.ensureGitBranch(matching: "main")
        try lane.ensureGitStatusClean()
        let version = try lane.bumpVersion(bump, files: [
            .pattern("Sources/Shiplane/Shiplane.swift", #"static let current = "(.+)""#),
        ])
        let notes = try lane.writeChangelog(version: version.description)
        // Built from the bumped sources, so the bundle is named and reports the new version; a
        // failed build or check stops the run before anything is committed or tagged.
        if bundle {
            try await lane.sh(["Scripts/bundle", "--output", ".build-bundle/dist"], timeout: 3600)
            try await lane.sh(["Scripts/bundle", "--check", "--output", ".build-bundle/dist"], timeout: 3600)
        }
        try lane.commitVersionBump(version, notes)
        try lane.addGitTag("v\(version)", message: "Shiplane \(version)")
        // What users download, made after the tag (the provenance names the tag's commit) and
        // before the push: a missing or unusable key stops the run while it can still roll back.
        var assets: [any ArtifactConvertible] = []
        if bundle {
            let name = try await lane.sh(["Scripts/bundle", "--name"], readOnly: true).trimmingCharacters(in: .whitespacesAndNewlines)
            let stem = name.hasSuffix(".tar.gz") ? String(name.dropLast(".tar.gz".count)) : name
            let tarball = try lane.artifact(".build-bundle/dist/\(name)", kind: .archive)
            // The Swift packages the bundle is built from (Package.resolved is not committed: the
            // bundle's build resolved it).
            let sbom = try lane.sbom(to: ".build-bundle/dist/\(stem).cdx.json", artifacts: [tarball], lockFiles: ["Package.resolved"],
                                     name: "shiplane", version: version)
            if unsigned {
                let sums = try lane.checksums([tarball, sbom], to: ".build-bundle/dist/SHA256SUMS")
                assets = [tarball, sums, sbom]
            } else {
                let provenance = try lane.provenance(for: [tarball], to: ".build-bundle/dist/\(stem).intoto.jsonl")
                let sums = try lane.checksums([tarball, sbom, provenance], to: ".build-bundle/dist/SHA256SUMS")
                let signatures = try lane.sign([sums], format: "openpgp")  // SHA256SUMS.asc
                assets = [tarball, sums, sbom, provenance] + signatures
            }
        }
        if push {
            try await lane.push(tags: ["v\(version)"])
            try await lane.githubRelease(tag: "v\(version)", notes: notes.section, assets: assets)
        }
    }
}
