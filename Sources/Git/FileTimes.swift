import Foundation

/// The times of a `stat` result under one spelling: Glibc names them `st_mtim`/`st_ctim`,
/// Darwin `st_mtimespec`/`st_ctimespec`.
package extension stat {
    /// When the file's content last changed.
    var modificationTime: timespec {
        #if os(Linux)
        st_mtim
        #else
        st_mtimespec
        #endif
    }

    /// When the file's status (content, mode, owner, links) last changed.
    var statusChangeTime: timespec {
        #if os(Linux)
        st_ctim
        #else
        st_ctimespec
        #endif
    }
}
