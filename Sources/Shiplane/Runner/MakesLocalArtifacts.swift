/// An action whose result is files in the work tree that are not committed (a build, an archive,
/// a checksum file): a run resumed from the record on origin in a fresh clone runs it again
/// there instead of replaying its recorded result, since the files are not in the clone. What it
/// makes again is checked where it is used: a published release asset that differs from the file
/// built again is an error naming both digests, never a silent replacement.
public protocol MakesLocalArtifacts {}

extension Sh: MakesLocalArtifacts {}
extension Archive: MakesLocalArtifacts {}
extension WriteChecksums: MakesLocalArtifacts {}
extension CopyToDirectory: MakesLocalArtifacts {}
