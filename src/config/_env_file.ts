/**
 * Internal: reads a server's `envFile` — a regular file of at most
 * {@linkcode MAX_ENV_FILE_BYTES} — with `node:fs/promises`, loaded on first
 * use. A device (`/dev/zero` would be read for ever), a FIFO (opening one
 * waits for a writer), a socket or a directory is refused before it is
 * read; a file that grows past the cap while it is read is refused too.
 *
 * @module
 */

/** The most an `envFile` may hold: a dotenv file is a few lines. */
export const MAX_ENV_FILE_BYTES = 1024 * 1024;

/** The file is not one an `envFile` may name; the message says why. */
export class EnvFileRefused extends Error {
  /**
   * Creates the error.
   *
   * @param message Why, and what to do (continues "cannot read PATH: ").
   */
  constructor(message: string) {
    super(message);
    this.name = "EnvFileRefused";
  }
}

interface Kind {
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  size: number;
}

/**
 * Reads an `envFile` as UTF-8 text.
 *
 * @param path An absolute path.
 * @returns The text.
 * @throws {EnvFileRefused} When it is not a regular file, or is larger than
 * {@linkcode MAX_ENV_FILE_BYTES}.
 * @throws The runtime's own error when it cannot be read (see `readFailure`).
 */
export async function readEnvFileText(path: string): Promise<string> {
  const fs = await import("node:fs/promises");
  const { constants } = await import("node:fs");
  check(await fs.stat(path));
  // Non-blocking, so that a file replaced by a FIFO after the stat is not
  // waited on either; the handle's own stat is checked again.
  const handle = await fs.open(
    path,
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0),
  );
  try {
    check(await handle.stat());
    const buffer = new Uint8Array(MAX_ENV_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(
        buffer,
        length,
        buffer.length - length,
        null,
      );
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_ENV_FILE_BYTES) throw tooLarge();
    return new TextDecoder().decode(buffer.subarray(0, length));
  } finally {
    await handle.close();
  }
}

function check(stat: Kind): void {
  if (stat.isDirectory()) {
    throw new EnvFileRefused("it is a directory; name a dotenv file in it");
  }
  if (!stat.isFile()) {
    throw new EnvFileRefused(
      `it is ${
        kindOf(stat)
      }; an envFile must be a regular file (a dotenv file of NAME=value lines)`,
    );
  }
  if (stat.size > MAX_ENV_FILE_BYTES) throw tooLarge();
}

function tooLarge(): EnvFileRefused {
  return new EnvFileRefused(
    `it is larger than ${
      MAX_ENV_FILE_BYTES / 1024 / 1024
    } MiB, more than a dotenv file holds; name the right file`,
  );
}

function kindOf(stat: Kind): string {
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return "of an unknown kind";
}
