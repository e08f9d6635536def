#!/usr/bin/env node
// webmcp-bridge: the WebMCP bridge from npm. With "install" (or
// "uninstall") it runs the bridge's installer on the binaries of the
// package for this system (@webmcp-bridge/OS-CPU, an optional dependency
// that npm installs only where it fits); with anything else it runs
// webmcp-shim with those arguments (no arguments: the MCP server on stdio,
// what an agent starts).
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const platformPackage = `@webmcp-bridge/${process.platform}-${process.arch}`;
const exe = process.platform === 'win32' ? '.exe' : '';

function binDir() {
  try {
    return path.join(path.dirname(require.resolve(`${platformPackage}/package.json`)), 'bin');
  } catch {
    console.error(`webmcp-bridge: no binaries for ${process.platform}-${process.arch}: the package ${platformPackage} is not installed. ` +
      'Install webmcp-bridge again without --omit=optional (or --no-optional); if npm says no version fits this system, the bridge has no release for it yet.');
    process.exit(1);
  }
}

// exit ends this process the way the child ended.
function exit(r) {
  if (r.error) {
    console.error(`webmcp-bridge: ${r.error.message}`);
    process.exit(1);
  }
  if (r.signal) {
    process.removeAllListeners(r.signal);
    process.kill(process.pid, r.signal);
    return;
  }
  process.exit(r.status ?? 1);
}

// install runs install.sh from a folder laid out as a release archive:
// install.sh, the binaries and the extension side by side, so that it
// installs those binaries and needs no Go; on Windows, webmcp-host.exe
// install --prefix, which install.sh and install.ps1 run as well.
function install(args) {
  const bin = binDir();
  // The steps the installer prints name this command, not the script.
  const env = { ...process.env, WEBMCP_INSTALLER: 'npx webmcp-bridge install' };
  if (process.platform === 'win32') {
    // The installer is webmcp-host's own (install.ps1 runs it too), into
    // %LOCALAPPDATA%\Programs\webmcp-bridge unless --prefix says otherwise.
    const verb = args.includes('--uninstall') ? 'uninstall' : 'install';
    const rest = args.filter((a) => a !== '--uninstall');
    const local = process.env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local');
    const ext = verb === 'install' ? ['--extension', path.join(__dirname, '..', 'extension')] : [];
    return spawnSync(path.join(bin, 'webmcp-host.exe'),
      [verb, '--prefix', path.join(local, 'Programs', 'webmcp-bridge'), ...ext, ...rest], { stdio: 'inherit', env });
  }
  const root = path.join(__dirname, '..');
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'webmcp-bridge-'));
  try {
    fs.copyFileSync(path.join(root, 'install.sh'), path.join(stage, 'install.sh'));
    fs.cpSync(path.join(root, 'extension'), path.join(stage, 'extension'), { recursive: true });
    for (const name of ['webmcp-host', 'webmcp-shim']) {
      fs.copyFileSync(path.join(bin, name), path.join(stage, name));
      fs.chmodSync(path.join(stage, name), 0o755);
    }
    return spawnSync('bash', [path.join(stage, 'install.sh'), ...args], { stdio: 'inherit', env });
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === 'install') {
  exit(install(args.slice(1)));
} else if (args[0] === 'uninstall') {
  exit(install(['--uninstall', ...args.slice(1)]));
} else {
  // The shim is the agent's MCP server: what stops this process stops it.
  const child = spawn(path.join(binDir(), 'webmcp-shim' + exe), args, { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('error', (error) => exit({ error }));
  child.on('exit', (status, signal) => exit({ status, signal }));
}
