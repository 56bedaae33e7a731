// A --skills directory as the host walks and copies it: real files and links, each refusal typed.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { BadSkillsError, SkillsLinkError } from "../../src/host/mcpErrors.js";
import { copySkills, planSkills } from "../../src/host/skillsDir.js";
import { MCP_LIMITS } from "../../src/protocol/index.js";

describe("a --skills directory", () => {
  let root = "";
  let skills = "";
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-skills-"));
    skills = join(root, "skills");
    await mkdir(join(skills, "tidy", "scripts"), { recursive: true });
    await writeFile(join(skills, "tidy", "SKILL.md"), "---\nname: tidy\n---\nTidy.\n");
    await writeFile(join(skills, "tidy", "scripts", "run.sh"), "#!/bin/sh\necho tidy\n", {
      mode: 0o755,
    });
    await writeFile(join(skills, "README.md"), "not a skill\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test("each folder with a SKILL.md is a skill; its files are copied, a script stays executable, a file beside the skills is left", async () => {
    const plan = await planSkills(skills);
    assert.deepEqual(plan.names, ["tidy"]);
    const dest = join(root, "share-skills");
    await copySkills(skills, plan.names, dest);
    assert.match(await readFile(join(dest, "tidy", "SKILL.md"), "utf8"), /Tidy/);
    assert.equal((await stat(join(dest, "tidy", "scripts", "run.sh"))).mode & 0o100, 0o100);
    await assert.rejects(stat(join(dest, "README.md")), { code: "ENOENT" });
  });

  test("a link pointing out of the directory is refused, wherever it is", async () => {
    await symlink("/etc/passwd", join(skills, "tidy", "scripts", "passwd"));
    await assert.rejects(planSkills(skills), (error: unknown) => {
      assert.ok(error instanceof SkillsLinkError);
      assert.equal(error.code, "SKILLS_LINK");
      assert.match(error.message, /passwd/);
      return true;
    });
  });

  test("a skill that is a link to a folder elsewhere is refused", async () => {
    await mkdir(join(root, "elsewhere"));
    await writeFile(join(root, "elsewhere", "SKILL.md"), "x");
    await symlink(join(root, "elsewhere"), join(skills, "away"));
    await assert.rejects(planSkills(skills), SkillsLinkError);
  });

  test("a link made after the task was created is refused when the share is written", async () => {
    const plan = await planSkills(skills);
    await rm(join(skills, "tidy", "scripts", "run.sh"));
    await symlink("/etc/shadow", join(skills, "tidy", "scripts", "run.sh"));
    await assert.rejects(copySkills(skills, plan.names, join(root, "dest")), SkillsLinkError);
  });

  test("more files than the limit are refused", async () => {
    const many = join(skills, "tidy", "many");
    await mkdir(many);
    for (let i = 0; i <= MCP_LIMITS.skillsEntries; i++) await writeFile(join(many, `f${i}`), "");
    await assert.rejects(planSkills(skills), (error: unknown) => {
      assert.ok(error instanceof BadSkillsError);
      assert.match(error.message, new RegExp(`more than ${MCP_LIMITS.skillsEntries} files`));
      return true;
    });
  });

  test("more bytes than the limit are refused", async () => {
    await writeFile(join(skills, "tidy", "big.bin"), Buffer.alloc(MCP_LIMITS.skillsBytes + 1));
    await assert.rejects(planSkills(skills), BadSkillsError);
  });

  test("folders nested deeper than the limit are refused", async () => {
    const deep = join(
      skills,
      "tidy",
      ...Array.from({ length: MCP_LIMITS.skillsDepth + 1 }, () => "d"),
    );
    await mkdir(deep, { recursive: true });
    await assert.rejects(planSkills(skills), BadSkillsError);
  });

  test("a folder without SKILL.md, a skill named like a hidden file, and an empty directory are refused", async () => {
    await mkdir(join(skills, "nothing"));
    await assert.rejects(planSkills(skills), /has no SKILL\.md/);
    await rm(join(skills, "nothing"), { recursive: true });
    await mkdir(join(skills, ".hidden"));
    await writeFile(join(skills, ".hidden", "SKILL.md"), "x");
    await assert.rejects(planSkills(skills), BadSkillsError);
    const empty = join(root, "empty");
    await mkdir(empty);
    await assert.rejects(planSkills(empty), /has no skill/);
  });

  test("a skill the task was made with and that is gone when the share is written is refused", async () => {
    await rm(join(skills, "tidy"), { recursive: true });
    await mkdir(join(skills, "other"));
    await writeFile(join(skills, "other", "SKILL.md"), "x");
    await assert.rejects(copySkills(skills, ["tidy"], join(root, "dest")), /no longer in/);
  });
});
