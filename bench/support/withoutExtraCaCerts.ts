// Imported first by every benchmark that starts processes: it takes NODE_EXTRA_CA_CERTS out of
// this process's environment, which every process it starts inherits. Node 20 reads and parses
// the whole file that variable names as it starts, before a line of the program runs: with the
// system's bundle of certificate authorities, as some machines set it for every program, that
// was 80 ms of each Node start here (`node -e 0` 122 ms with it, 41 ms without). It is no cost
// of warden's, and left in it would hide warden's own: against `node -e 0` both sides pay it and
// the ratio shrinks towards 1; against git, which never reads it, only warden's side pays it. A
// warden started where it is set pays it too, as any Node program does there.
const VARIABLE = "NODE_EXTRA_CA_CERTS";

if (process.env[VARIABLE] !== undefined) {
  delete process.env.NODE_EXTRA_CA_CERTS;
  console.log(`(${VARIABLE} is set here; the processes this benchmark starts run without it)`);
}
