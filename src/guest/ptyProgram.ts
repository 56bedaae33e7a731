// The terminal of `warden shell`. Node has no pseudo-terminal without a native module, and the
// runner loads none, so a small Python program makes one with the standard library's pty module:
// it starts the command on the terminal's other side, copies stdin to it and its output to
// stdout, and sets the terminal's size from lines "ROWS COLS" on fd 3. A Ctrl-C is the byte 0x03
// written to the terminal, which the kernel's line discipline turns into SIGINT for the
// command's foreground process group, as on any terminal. Python 3 is chosen over script(1):
// script takes its size from its own stdin, which here is a pipe, so it could not resize.

/** Where the runner looks for Python inside the sandbox (bound read-only from the host's /usr). */
export const PTY_PYTHON = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"] as const;

/** argv after the program: ROWS COLS COMMAND [ARGS...]. Exits with the command's code, or 128+signal. */
export const PTY_PROGRAM = `
import fcntl, os, pty, select, struct, sys, termios
rows, cols = int(sys.argv[1]), int(sys.argv[2])
argv = sys.argv[3:]
def size(fd, r, c):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
pid, master = pty.fork()
if pid == 0:
    size(0, rows, cols)
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        os.write(2, ("warden shell: cannot run %s: %s\\r\\n" % (argv[0], error.strerror)).encode())
        os._exit(127)
inputs = [0, 3, master]
control = b""
while True:
    try:
        ready, _, _ = select.select(inputs, [], [])
    except InterruptedError:
        continue
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:
            data = b""
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        data = os.read(0, 65536)
        if data:
            os.write(master, data)
        else:
            inputs.remove(0)
    if 3 in ready:
        data = os.read(3, 4096)
        if not data:
            inputs.remove(3)
        control = (control + data)[-4096:]
        while b"\\n" in control:
            line, control = control.split(b"\\n", 1)
            parts = line.split()
            if len(parts) == 2:
                size(master, int(parts[0]), int(parts[1]))
_, status = os.waitpid(pid, 0)
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
`;
