/// Text read from a user's file as an error quotes it: at most `limit` characters, then the cut
/// said in words. A 10 MB VERSION file made one error 30 MB long (the value in the message, in
/// the parse error beneath it and in its facts); every place that quotes a value it read from a
/// file, or a value given to it, goes through this.
package func quotedFromFile(_ text: String, limit: Int = 120) -> String {
    guard text.utf8.count > limit else { return text }
    let kept = text.prefix(limit)
    guard kept.endIndex < text.endIndex else { return text }
    return String(kept) + "… (cut here: \(text.utf8.count) bytes in all)"
}
