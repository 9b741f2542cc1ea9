/**
 * One change to a hub resource, as every console form makes it: the call, then the queries it makes stale
 * refetched (before the form closes, so the list it returns to already shows the change), the hub's 400
 * `details` by field, and what to say once it worked.
 */
import { useMutation, useQueryClient, type QueryKey, type UseMutationResult } from '@tanstack/react-query';
import { fieldProblems, type FieldProblems } from './form-problems';

export interface ResourceMutationOptions<TData, TVariables> {
  mutationFn: (variables: TVariables) => Promise<TData>;
  /** The query keys (prefixes) whose data the change makes stale. */
  invalidates: readonly QueryKey[];
  /** After the invalidation: close the form, hand the saved record on. */
  onSuccess?: (data: TData, variables: TVariables) => void | Promise<void>;
  /** What the user is told once it worked (read from `notice`). */
  notice?: (data: TData, variables: TVariables) => string;
}

export type ResourceMutation<TData, TVariables> = UseMutationResult<TData, Error, TVariables> & {
  /** The hub's problems by form field; empty unless the last call was refused with `details`. */
  problems: FieldProblems;
  /** The success notice of the last call, or null. */
  notice: string | null;
};

export function useResourceMutation<TData, TVariables = void>({
  mutationFn,
  invalidates,
  onSuccess,
  notice,
}: ResourceMutationOptions<TData, TVariables>): ResourceMutation<TData, TVariables> {
  const client = useQueryClient();
  const mutation = useMutation<TData, Error, TVariables>({
    mutationFn,
    onSuccess: async (data, variables) => {
      await Promise.all(invalidates.map(async (queryKey) => client.invalidateQueries({ queryKey })));
      await onSuccess?.(data, variables);
    },
  });
  return {
    ...mutation,
    problems: fieldProblems(mutation.error),
    notice: mutation.isSuccess && notice ? notice(mutation.data, mutation.variables) : null,
  };
}
