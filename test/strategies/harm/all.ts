/** Every harm case, in class order (see harm-cases.test.ts). */
import type { HarmCase } from './case.js';
import { searchCases } from './cases-search.js';
import { chainedCases } from './cases-chained.js';
import { traceCases } from './cases-traces.js';
import { warningCases } from './cases-warnings.js';
import { testTitleCases } from './cases-tests.js';
import { languageCases } from './cases-languages.js';
import { proseCases } from './cases-prose.js';
import { falseSuccessCases, logFailureCases } from './cases-logs.js';
import { repetitiveCases } from './cases-repetitive.js';
import { installShrinkCases, installWarningCases } from './cases-install.js';
import { lintMessageCases } from './cases-lint.js';
import { rareKindCases } from './cases-rare.js';

export const HARM_CASES: readonly HarmCase[] = [
  ...searchCases,
  ...traceCases,
  ...chainedCases,
  ...warningCases,
  ...testTitleCases,
  ...languageCases,
  ...proseCases,
  ...logFailureCases,
  ...falseSuccessCases,
  ...repetitiveCases,
  ...installWarningCases,
  ...lintMessageCases,
  ...installShrinkCases,
  ...rareKindCases,
];
