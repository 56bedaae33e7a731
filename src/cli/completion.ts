// `warden completion bash|zsh`: a shell completion script for verbs, their options and task ids.
// The script is built from the program's own verbs and options, so it cannot fall behind them;
// task ids come at completion time from the hidden verb `warden __complete-ids`.
import { Argument, type Command, type Help } from "commander";
import { openTasks } from "./context.js";
import { standardOut } from "./standardStreams.js";

/** The word that names the newest task wherever an id is taken (the store resolves it). */
export const NEWEST_TASK = "@last";

/** The hidden verb the scripts call for the ids of the tasks in the store. */
export const COMPLETE_IDS_VERB = "__complete-ids";

const SHELLS = ["bash", "zsh"] as const;

/** Which of a verb's positional words are task ids. */
type IdWords = "none" | "first" | "all";

/** What completion needs to know of one verb. */
export interface VerbCompletion {
  name: string;
  options: string[];
  /** The options that take a value: the word after one is that value, not a positional word. */
  valueOptions: string[];
  ids: IdWords;
  /** The values the verb's first positional word may take, when it has a fixed few. */
  choices: string[];
}

export interface CompletionPlan {
  verbs: VerbCompletion[];
  globalOptions: string[];
  globalValueOptions: string[];
}

function flagsOf(help: Help, command: Command): { options: string[]; valueOptions: string[] } {
  const options: string[] = [];
  const valueOptions: string[] = [];
  for (const option of help.visibleOptions(command)) {
    const flags = [option.long, option.short].filter((flag) => flag !== undefined);
    options.push(...flags);
    if (option.required || option.optional) valueOptions.push(...flags);
  }
  return { options, valueOptions };
}

function idWords(command: Command): IdWords {
  const first = command.registeredArguments[0];
  if (first === undefined || !first.name().startsWith("id")) return "none";
  return first.variadic ? "all" : "first";
}

/** The completion plan of a program: its visible verbs, each with its options. */
export function completionPlan(program: Command): CompletionPlan {
  // commander's own help decides what is visible: hidden verbs stay out, help and --help are in.
  const help = program.createHelp();
  const verbs = help.visibleCommands(program).map((command) => ({
    name: command.name(),
    ...flagsOf(help, command),
    ids: idWords(command),
    choices: command.registeredArguments[0]?.argChoices ?? [],
  }));
  const global = flagsOf(help, program);
  return {
    verbs,
    globalOptions: global.options,
    globalValueOptions: global.valueOptions,
  };
}

/** The case arms that set a verb's options, value options and id words, in bash and zsh alike. */
function verbArms(plan: CompletionPlan): string {
  return plan.verbs
    .map(
      (verb) =>
        `    ${verb.name}) opts="${verb.options.join(" ")}"; valueopts=" ${verb.valueOptions.join(" ")} "; ids=${verb.ids}; choices="${verb.choices.join(" ")}" ;;`,
    )
    .join("\n");
}

/**
 * The bash script. Words before the verb are global options; after the verb, a word that starts
 * with `-` completes to the verb's options, the word after an option that takes a value is left
 * to bash's own file completion, and the positional words that are task ids complete to the ids
 * in the store (of the --data-dir on the line, if there is one).
 */
export function bashScript(plan: CompletionPlan): string {
  const verbs = plan.verbs.map((verb) => verb.name).join(" ");
  return `# warden completion for bash. Load it with: source <(warden completion bash)
_warden() {
  # zsh's bashcompinit hands over COMP_WORDS counted from 1; bash counts from 0.
  [[ -n \${ZSH_VERSION-} ]] && setopt localoptions ksharrays
  # bash splits words at \`@\` (it is in COMP_WORDBREAKS), so \`@last\` comes as \`@\` and \`last\`:
  # they are joined again in wwords (zsh keeps the name words for itself), and the whole word is
  # offered, which is what readline replaces.
  local wwords=() wcword=0 k last
  for (( k = 0; k < \${#COMP_WORDS[@]}; k++ )); do
    last=$(( \${#wwords[@]} - 1 ))
    if (( last > 0 )) && [[ \${wwords[last]} == @ ]]; then
      wwords[last]="@\${COMP_WORDS[k]}"
    else
      wwords+=("\${COMP_WORDS[k]}")
    fi
    (( k == COMP_CWORD )) && wcword=$(( \${#wwords[@]} - 1 ))
  done
  local cur=\${wwords[wcword]} prev=\${wwords[wcword-1]}
  local verb="" datadir=() i=1 opts="" valueopts=" " ids=none choices=""
  while (( i < wcword )); do
    case \${wwords[i]} in
      --data-dir) datadir=(--data-dir "\${wwords[i+1]}"); (( i += 2 )); continue ;;
      -*) ;;
      *) verb=\${wwords[i]}; break ;;
    esac
    (( i++ ))
  done
  COMPREPLY=()
  if [[ -z $verb ]]; then
    [[ $prev == --data-dir ]] && return
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "${plan.globalOptions.join(" ")}" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "${verbs}" -- "$cur"))
    fi
    return
  fi
  case $verb in
${verbArms(plan)}
    *) return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  [[ $valueopts == *" $prev "* ]] && return
  local positional=0 j
  for (( j = i + 1; j < wcword; j++ )); do
    if [[ $valueopts == *" \${wwords[j]} "* ]]; then (( j++ ))
    elif [[ \${wwords[j]} != -* ]]; then (( positional++ ))
    fi
  done
  if [[ -n $choices && $positional -eq 0 ]]; then
    COMPREPLY=($(compgen -W "$choices" -- "$cur"))
    return
  fi
  [[ $ids == none ]] && return
  [[ $ids == first && $positional -gt 0 ]] && return
  COMPREPLY=($(compgen -W "$(command warden "\${datadir[@]}" ${COMPLETE_IDS_VERB} 2>/dev/null)" -- "$cur"))
}
complete -o default -F _warden warden
`;
}

/**
 * The zsh script: zsh's own bashcompinit runs the bash function above, so both shells complete
 * the same words by the same rules.
 */
export function zshScript(plan: CompletionPlan): string {
  return `#compdef warden
# warden completion for zsh. Load it with: source <(warden completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(plan).split("\n").slice(1).join("\n")}`;
}

export function registerCompletion(program: Command): void {
  program
    .command("completion")
    .summary("print a shell completion script")
    .description(
      "Print a completion script for bash or zsh: verbs, their options and task ids.\n" +
        "Load it in the current shell with `source <(warden completion bash)`, or for every\n" +
        "shell add that line to ~/.bashrc (or `source <(warden completion zsh)` to ~/.zshrc).",
    )
    .addArgument(new Argument("<shell>", "bash or zsh").choices(SHELLS))
    .action((name: string) => {
      const plan = completionPlan(program);
      standardOut.write(name === "bash" ? bashScript(plan) : zshScript(plan));
    });
  program
    .command(COMPLETE_IDS_VERB, { hidden: true })
    .description("Print the id of every task, one a line, and @last, for the completion scripts.")
    .action(async (_flags: unknown, cmd: Command) => {
      const tasks = await openTasks(cmd);
      // A damaged task is left out quietly: completion must not write over the user's line.
      const list = await tasks.list({ onDamaged: () => undefined });
      for (const task of list) standardOut.write(`${task.id}\n`);
      // `@last` names the newest task wherever an id is taken; it is offered once there is one.
      if (list.length > 0) standardOut.write(`${NEWEST_TASK}\n`);
    });
}
