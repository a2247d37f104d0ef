// The size of src/ (issue 24, contract 4.2): no function over 80 lines and no file over 300, comments and blank
// lines included, so that a request's path reads in short steps. test/lint/size.test.ts holds src/ to it.
export const MAX_FUNCTION_LINES = 80;
export const MAX_FILE_LINES = 300;

export function sizeRules() {
  return [
    {
      files: ['src/**/*.ts'],
      rules: {
        'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, skipBlankLines: false, skipComments: false, IIFEs: true }],
        'max-lines': ['error', { max: MAX_FILE_LINES, skipBlankLines: false, skipComments: false }],
      },
    },
  ];
}
