// The part of the untyped `fs-ext` package the store uses: flock(2) on an open file descriptor.
declare module "fs-ext" {
  type FlockFlags = "sh" | "ex" | "shnb" | "exnb" | "un";
  interface FsExt {
    /** flock(2); throws an error whose `code` is EAGAIN or EWOULDBLOCK when a non-blocking lock is taken. */
    flockSync(fd: number, flags: FlockFlags): void;
  }
  const fsExt: FsExt;
  export default fsExt;
}
