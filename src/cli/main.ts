declare const __ATOMIC_VERSION__: string;
process.stdout.write(`${__ATOMIC_VERSION__}\n`);
