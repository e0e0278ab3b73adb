#!/usr/bin/env node
// The `arena` command. The sources are TypeScript, run through tsx's loader (no build step to forget).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
