// Regenerates config.yaml.example from the config key table (npm run config:example).
import { writeFileSync } from 'node:fs';
import { renderExample } from '../src/config/example.js';

writeFileSync(new URL('../config.yaml.example', import.meta.url), renderExample());
