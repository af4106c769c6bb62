package io.activityservice.app.security.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/** Writes a generated admin key to a file only its owner may read or write (mode 600). */
public final class AdminKeyFile {

  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private AdminKeyFile() {}

  /**
   * Writes {@code key} (and a newline) to {@code file}, replacing it. The content goes to a
   * temporary file created with owner-only permissions (so it is never readable by others, not even
   * for a moment) and is then moved into place.
   *
   * @return whether the file system enforces owner-only permissions (false on non-POSIX file
   *     systems)
   */
  public static boolean write(Path file, String key) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    boolean posix = Files.getFileStore(dir).supportsFileAttributeView("posix");
    Path tmp = dir.resolve(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try {
      if (posix) {
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } else {
        Files.createFile(tmp);
      }
    } catch (FileAlreadyExistsException e) {
      throw new IOException("could not create " + tmp + " (created concurrently?)", e);
    }
    Files.writeString(
        tmp, key + "\n", StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
    if (posix) {
      // The umask may have taken bits away but never adds any; set them explicitly anyway.
      Files.setPosixFilePermissions(tmp, OWNER_ONLY);
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return posix;
  }
}
