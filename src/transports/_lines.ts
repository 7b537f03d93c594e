/**
 * Newline-delimited text from a byte stream: the framing of the stdio
 * transport. Internal.
 *
 * @module
 */

/**
 * Reads `reader` as UTF-8 and calls `onLine` for each line: split on "\n",
 * a trailing "\r" stripped, empty lines skipped, a final unterminated line
 * included. One string buffer and `indexOf`, no per-chunk arrays; `scanFrom`
 * skips text already searched, so a long line arriving in many chunks is
 * scanned once. A pending line longer than `maxPendingChars` is handed on as
 * is. Read errors reject.
 */
export async function readLines(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  onLine: (line: string) => void,
  maxPendingChars = Infinity,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  let scanFrom = 0;
  const emit = (start: number, end: number) => {
    if (end > start && buffer.charCodeAt(end - 1) === 13) end--; // "\r"
    if (end > start) onLine(buffer.slice(start, end));
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let start = 0;
    let newline = buffer.indexOf("\n", scanFrom);
    while (newline !== -1) {
      emit(start, newline);
      start = newline + 1;
      newline = buffer.indexOf("\n", start);
    }
    if (start > 0) buffer = buffer.slice(start);
    if (buffer.length > maxPendingChars) {
      emit(0, buffer.length);
      buffer = "";
    }
    scanFrom = buffer.length;
  }
  buffer += decoder.decode();
  emit(0, buffer.length);
}
