// Every verb file of the whole program, in the order `warden --help` lists their verbs. Each
// loads only when it is called (verbFile.ts), so a file's imports cost nothing to a command line
// that runs another verb. A test checks `runs` against the verbs the files register.
import { LS_FILE, SEND_FILE, SHOW_FILE } from "./quickVerbs.js";
import type { VerbFile } from "./verbFile.js";

export const VERB_FILES: readonly VerbFile[] = [
  { runs: ["run"], load: async () => (await import("./run.js")).registerRun },
  { runs: ["create"], load: async () => (await import("./create.js")).registerCreate },
  { runs: ["start"], load: async () => (await import("./start.js")).registerStart },
  { runs: ["rerun"], load: async () => (await import("./rerun.js")).registerRerun },
  { runs: ["continue"], load: async () => (await import("./continue.js")).registerContinue },
  LS_FILE,
  SHOW_FILE,
  { runs: ["watch"], load: async () => (await import("./watch.js")).registerWatch },
  { runs: ["logs"], load: async () => (await import("./logs.js")).registerLogs },
  SEND_FILE,
  {
    runs: ["approve", "approvals"],
    load: async () => (await import("./approve.js")).registerApprove,
  },
  { runs: ["cancel"], load: async () => (await import("./cancel.js")).registerCancel },
  {
    runs: ["suspend", "resume"],
    load: async () => (await import("./suspend.js")).registerSuspend,
  },
  { runs: ["wait"], load: async () => (await import("./wait.js")).registerWait },
  { runs: ["exec"], load: async () => (await import("./exec.js")).registerExec },
  { runs: ["shell"], load: async () => (await import("./shell.js")).registerShell },
  { runs: ["cp"], load: async () => (await import("./cp.js")).registerCp },
  { runs: ["stop"], load: async () => (await import("./stop.js")).registerStop },
  { runs: ["fetch"], load: async () => (await import("./fetch.js")).registerFetch },
  { runs: ["diff"], load: async () => (await import("./diff.js")).registerDiff },
  { runs: ["rm"], load: async () => (await import("./rm.js")).registerRm },
  { runs: ["gc"], load: async () => (await import("./gc.js")).registerGc },
  { runs: ["doctor"], load: async () => (await import("./doctor.js")).registerDoctor },
  { runs: ["config"], load: async () => (await import("./config.js")).registerConfig },
  { runs: ["serve"], load: async () => (await import("./serve.js")).registerServe },
  { runs: ["worker"], load: async () => (await import("./worker.js")).registerWorker },
  // `completion` builds its script from every verb's options, so it needs the whole program;
  // the hidden verb the script calls for task ids needs only this file.
  {
    runs: ["__complete-ids"],
    load: async () => (await import("./completion.js")).registerCompletion,
  },
];
