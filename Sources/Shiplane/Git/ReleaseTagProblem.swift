import Foundation

/// Why a tag pipeline cannot publish its tag; each is found before any effect.
enum ReleaseTagProblem: ReportableError {
    /// The tag named (by the CI, or the lane) is not a release tag under the project's rule;
    /// `package` names the monorepo package whose tag it is, when one's is.
    case notARelease(tag: String, source: String, rule: String, package: String?)
    /// The tag is neither here nor on origin.
    case missing(tag: String, source: String, fetchedFrom: String?)
    /// The tag names another commit than HEAD: the pipeline built something else.
    case notAtHead(tag: String, source: String, tagCommit: String, head: String)
    /// No tag was named and no release tag points at HEAD.
    case noneAtHead(head: String)
    /// The version files hold another version than the tag.
    case versionFilesDisagree(tag: String, version: String, files: [(path: String, version: String)])

    var message: String {
        switch self {
        case .notARelease(let tag, let source, let rule, _):
            "\(tag) (from \(source)) is not a release tag: release tags are \(rule)"
        case .missing(let tag, let source, let remote):
            "the tag \(tag) (from \(source)) is not in this repository" + (remote.map { " nor on \($0)" } ?? "")
        case .notAtHead(let tag, let source, let tagCommit, let head):
            "the tag \(tag) (from \(source)) points at \(tagCommit), not at HEAD (\(head)): this checkout is not the tagged commit"
        case .noneAtHead(let head):
            "no release tag points at HEAD (\(head)), and no CI variable names a tag"
        case .versionFilesDisagree(let tag, let version, let files):
            "the version files do not hold \(version), the version of the tag \(tag): "
                + files.map { "\($0.path) holds \($0.version)" }.joined(separator: ", ")
        }
    }

    var info: [(key: String, value: String)] {
        switch self {
        case .notAtHead(let tag, _, let tagCommit, let head): [(tag, tagCommit), ("HEAD", head)]
        case .versionFilesDisagree(let tag, let version, let files): [(tag, version)] + files.map { ($0.path, $0.version) }
        default: []
        }
    }

    /// A checkout or a tag that does not fit is the user's to fix, as for a detached HEAD.
    var category: ErrorCategory { .environment }

    var suggestion: String? {
        switch self {
        case .notARelease(_, _, _, let package?):
            "it is a release tag of the package \(package): publish it from that package's context, `try lane.package(\"\(package)\").releaseFromTag()`; nothing was published"
        case .notARelease:
            "push a release tag (`git tag v1.4.0 && git push origin v1.4.0`), or set the tag rule in .shiplane.yml; nothing was published"
        case .missing(let tag, _, _):
            "fetch it (`git fetch origin tag \(tag)`; GitHub Actions: actions/checkout with `fetch-depth: 0`; GitLab CI: `GIT_DEPTH: 0`), then run again"
        case .notAtHead(let tag, _, _, _):
            "check out the tagged commit (`git checkout \(tag)`), or run the pipeline the tag started; nothing was published"
        case .noneAtHead:
            "run this lane in the pipeline a pushed tag starts, tag HEAD (`git tag v1.4.0`), or set SHIPLANE_TAG; the variables looked at: "
                + CITag.variablesLookedAt.joined(separator: ", ")
        case .versionFilesDisagree(_, let version, _):
            "set \(version) in every version file and move the tag to that commit, or tag the version the files hold; nothing was published"
        }
    }
}
