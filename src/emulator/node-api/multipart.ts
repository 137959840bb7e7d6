/**
 * Extracts the first file part (field `file`) of a multipart/form-data body, for servers that route
 * /postassetmedia to NodeWorld: pass the result as the body `{ file: bytes, mime }`.
 */
export function parseMultipartFile(contentType: string, raw: Buffer): { file: Buffer; mime: string; filename?: string } | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) return undefined;
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  let pos = raw.indexOf(boundary);
  while (pos !== -1) {
    const start = pos + boundary.length;
    const next = raw.indexOf(boundary, start);
    if (next === -1) break;
    const part = raw.subarray(start, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd !== -1) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      if (/name="file"/i.test(headers)) {
        let content = part.subarray(headerEnd + 4);
        if (content.subarray(-2).toString() === '\r\n') content = content.subarray(0, -2);
        const mime = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? 'application/octet-stream';
        const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
        return { file: Buffer.from(content), mime, filename };
      }
    }
    pos = next;
  }
  return undefined;
}
