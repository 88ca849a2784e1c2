// Lint runs in the production build (`jlpm build:prod`): warnings fail it too.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['lib/', 'node_modules/', '../jupyter_agent/labextension/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname
      }
    },
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: { regex: '^I[A-Z]', match: true }
        }
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none' }],
      // Lumino signals bind the slot's `this` through connect(slot, thisArg).
      '@typescript-eslint/unbound-method': 'off',
      curly: ['error', 'all'],
      eqeqeq: 'error',
      'no-console': 'error',
      'prefer-arrow-callback': 'error'
    }
  }
);
