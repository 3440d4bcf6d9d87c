#!/usr/bin/env node
// Runs many Quint command lines in one node process, for ctest (tests/spec/CMakeLists.txt):
//
//   node run_batch.js SPEC_DIR JOBS_FILE
//
// Each line of JOBS_FILE is one job: NAME EXPECT QUINT_ARGS..., with EXPECT one of
//   ok           quint must exit 0;
//   violation    `quint run` must report a violation (Quint printed "[violation]");
//   traces=DIR   quint must exit 0, and DIR is emptied first (for its --out-itf traces).
// Each job runs through Quint's own command line (cli.js and its yargs options), exactly as
// `quint QUINT_ARGS...` would, except that every input file is parsed and typechecked once
// for the whole batch: that is most of a Quint run's time (about 6 CPU-s of the spec), and it
// depends only on the file. A parse or type error still fails every job on that file.
// Jobs run one after another, each with its own seed, so their results are those of separate
// runs. Exits 0 when every job met its expectation, 1 otherwise (each job's verdict and the
// tail of its output are printed), 77 (ctest: skipped) when SPEC_DIR/node_modules is absent.
'use strict';

const fs = require('fs');
const path = require('path');

const [specDir, jobsFile] = process.argv.slice(2);
if (!specDir || !jobsFile) {
  console.error('usage: run_batch.js SPEC_DIR JOBS_FILE');
  process.exit(2);
}
const quintDir = path.join(specDir, 'node_modules', '@informalsystems', 'quint', 'dist', 'src');
if (!fs.existsSync(path.join(quintDir, 'cli.js'))) {
  console.log(`skipped: ${specDir}/node_modules is absent (run: npm ci --prefix ${specDir})`);
  process.exit(77);
}
const commands = require(path.join(quintDir, 'cliCommands.js'));
const cliPath = require.resolve(path.join(quintDir, 'cli.js'));
// Lines of each job's output to print (run_quint.sh printed 40).
const tailLines = Number(process.env.QUINT_BATCH_TAIL || 40);

// Replaces stage.args of an Either's value (right: the stage; left: {msg, stage}).
function withArgs(result, args) {
  return result.map(stage => ({ ...stage, args })).mapLeft(({ msg, stage }) => ({
    msg,
    stage: { ...stage, args },
  }));
}

// Memoizes a stage function of cliCommands by the input file's path. cli.js looks the
// functions up on the exports object when a command runs, so it calls these.
function memoizeByPath(name) {
  const original = commands[name];
  const results = new Map();
  commands[name] = async prev => {
    if (!results.has(prev.path)) results.set(prev.path, await original(prev));
    return withArgs(results.get(prev.path), prev.args);
  };
}
memoizeByPath('parse');
memoizeByPath('typecheck');

// Runs one Quint command line; resolves to its exit code and everything it printed.
function runQuint(args) {
  return new Promise(resolve => {
    const output = [];
    const saved = { out: process.stdout.write, err: process.stderr.write, exit: process.exit };
    const capture = chunk => {
      output.push(String(chunk));
      return true;
    };
    process.stdout.write = process.stderr.write = capture;
    process.exit = code => {
      Object.assign(process.stdout, { write: saved.out });
      Object.assign(process.stderr, { write: saved.err });
      process.exit = saved.exit;
      resolve({ code: code ?? 0, output: output.join('') });
    };
    process.argv = [process.argv[0], cliPath, ...args];
    delete require.cache[cliPath];
    require(cliPath);
  });
}

function verdict(expect, code, output) {
  if (expect === 'violation') {
    if (code !== 0 && /^\[violation\]/m.test(output)) return 'expected violation found';
    return `FAILED: expected a violation (quint exit ${code})`;
  }
  return code === 0 ? 'ok' : `FAILED: quint exit ${code}`;
}

async function main() {
  process.chdir(specDir);
  const jobs = fs
    .readFileSync(jobsFile, 'utf8')
    .split('\n')
    .map(line => line.trim().split(/\s+/))
    .filter(fields => fields[0] !== '' && !fields[0].startsWith('#'));
  let failed = 0;
  for (const [name, expect, ...args] of jobs) {
    if (expect.startsWith('traces=')) {
      const dir = expect.slice('traces='.length);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
    } else if (expect !== 'ok' && expect !== 'violation') {
      console.log(`${name}: FAILED: unknown expectation ${expect}`);
      failed++;
      continue;
    }
    const started = process.cpuUsage();
    const { code, output } = await runQuint(args);
    const used = process.cpuUsage(started);
    const result = verdict(expect, code, output.replace(/\x1b\[[0-9;]*m/g, ''));
    if (result.startsWith('FAILED')) failed++;
    const cpu = ((used.user + used.system) / 1e6).toFixed(1);
    console.log(`--- ${name}: quint ${args.join(' ')}`);
    console.log(output.trimEnd().split('\n').slice(-tailLines).join('\n'));
    console.log(`--- ${name}: ${result} (${cpu} CPU-s)`);
  }
  console.log(`${jobs.length - failed} of ${jobs.length} Quint jobs met their expectation`);
  process.exit(failed === 0 ? 0 : 1);
}

main();
