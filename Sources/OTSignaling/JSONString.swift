/// JSON string literals, for every hand-written JSON in OTKit (tokens' claims, the
/// router's REST bodies and log lines, `otbench --json`): one escaping rule everywhere.
public enum JSONString {
    /// `text` as a JSON string literal: quotes, backslashes and control characters
    /// escaped, everything outside printable ASCII as `\uXXXX` (UTF-16 units), the way
    /// Python's `json.dumps` writes it. Cost: one pass, one string of about the input's size.
    public static func literal(_ text: String) -> String { JSONWriter.string(text) }
}
