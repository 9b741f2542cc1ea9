/**
 * One incident's review (decision 0080): its timeline (alerts, the asset's audit entries), the summary, cause
 * and follow-ups people write (checked as the hub checks them), and the review as a Markdown download.
 */
import { useState, type SyntheticEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { reviewLimits, type FollowUp, type IncidentReview } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ErrorNotice } from '../../components/ErrorNotice';
import { fieldProblems, hasUnplacedProblem } from '../../components/form-problems';
import { Loading } from '../../components/Loading';
import { formatTime } from '../../components/units';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
import type { Translator } from '../../i18n/translator';
import { SeverityBadge } from '../alerts/SeverityBadge';
import './incidents.css';

interface Draft {
  summary: string;
  cause: string;
  follow_ups: FollowUp[];
}

/** What the hub would refuse, said before asking it. */
function draftProblems(draft: Draft, t: Translator['t']): Record<string, string> {
  const problems: Record<string, string> = {};
  if (draft.summary.length > reviewLimits.summaryLength) {
    problems.summary = t('incidents.atMostCharacters', { max: reviewLimits.summaryLength });
  }
  if (draft.cause.length > reviewLimits.causeLength) {
    problems.cause = t('incidents.atMostCharacters', { max: reviewLimits.causeLength });
  }
  if (draft.follow_ups.length > reviewLimits.followUps) {
    problems.follow_ups = t('incidents.atMostFollowUps', { max: reviewLimits.followUps });
  } else if (draft.follow_ups.some((f) => f.text.trim() === '')) {
    problems.follow_ups = t('incidents.followUpEmpty');
  } else if (draft.follow_ups.some((f) => f.text.length > reviewLimits.followUpLength)) {
    problems.follow_ups = t('incidents.followUpTooLong', { max: reviewLimits.followUpLength });
  }
  return problems;
}

function saveText(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 30_000);
}

function ReviewForm({ review, canEdit }: { review: IncidentReview; canEdit: boolean }) {
  const { t } = useT();
  const [draft, setDraft] = useState<Draft>({
    summary: review.summary,
    cause: review.cause,
    follow_ups: review.follow_ups,
  });
  const [local, setLocal] = useState<Record<string, string>>({});
  const save = useResourceMutation({
    mutationFn: async (body: Draft) =>
      (await hub.call('incidents.replaceReview', { params: { id: review.incident.id }, body })).data,
    invalidates: [['incidents', 'review', review.incident.id]],
  });
  const problems = { ...fieldProblems(save.error), ...local };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const found = draftProblems(draft, t);
    setLocal(found);
    if (Object.keys(found).length === 0) save.mutate(draft);
  };
  const setFollowUp = (index: number, change: Partial<FollowUp>) => {
    setDraft((d) => ({
      ...d,
      follow_ups: d.follow_ups.map((f, i) => (i === index ? { ...f, ...change } : f)),
    }));
  };
  return (
    <form className="review-form" onSubmit={submit} aria-label={t('incidents.review')} noValidate>
      <div className="field">
        <label htmlFor="review-summary">{t('incidents.summary')}</label>
        <textarea
          id="review-summary"
          rows={4}
          value={draft.summary}
          readOnly={!canEdit}
          aria-invalid={problems.summary !== undefined}
          {...(problems.summary ? { 'aria-describedby': 'review-summary-problem' } : {})}
          onChange={(e) => {
            setDraft({ ...draft, summary: e.target.value });
          }}
        />
        {problems.summary && (
          <span id="review-summary-problem" className="field-error">
            {problems.summary}
          </span>
        )}
      </div>
      <div className="field">
        <label htmlFor="review-cause">{t('incidents.cause')}</label>
        <textarea
          id="review-cause"
          rows={3}
          value={draft.cause}
          readOnly={!canEdit}
          aria-invalid={problems.cause !== undefined}
          {...(problems.cause ? { 'aria-describedby': 'review-cause-problem' } : {})}
          onChange={(e) => {
            setDraft({ ...draft, cause: e.target.value });
          }}
        />
        {problems.cause && (
          <span id="review-cause-problem" className="field-error">
            {problems.cause}
          </span>
        )}
      </div>
      <fieldset className="follow-ups">
        <legend>{t('incidents.followUps')}</legend>
        {draft.follow_ups.length === 0 && <p className="muted">{t('incidents.noFollowUps')}</p>}
        <ul>
          {draft.follow_ups.map((f, i) => (
            <li key={i}>
              <input
                type="checkbox"
                aria-label={t('incidents.followUpDone', { n: i + 1 })}
                checked={f.done}
                disabled={!canEdit}
                onChange={(e) => {
                  setFollowUp(i, { done: e.target.checked });
                }}
              />
              <input
                aria-label={t('incidents.followUp', { n: i + 1 })}
                value={f.text}
                readOnly={!canEdit}
                onChange={(e) => {
                  setFollowUp(i, { text: e.target.value });
                }}
              />
              {canEdit && (
                <button
                  type="button"
                  aria-label={t('incidents.removeFollowUp', { n: i + 1 })}
                  onClick={() => {
                    setDraft({ ...draft, follow_ups: draft.follow_ups.filter((_, j) => j !== i) });
                  }}
                >
                  {t('common.remove')}
                </button>
              )}
            </li>
          ))}
        </ul>
        {canEdit && (
          <button
            type="button"
            onClick={() => {
              setDraft({ ...draft, follow_ups: [...draft.follow_ups, { text: '', done: false }] });
            }}
          >
            {t('incidents.addFollowUp')}
          </button>
        )}
        {problems.follow_ups && (
          <p className="field-error" role="alert">
            {problems.follow_ups}
          </p>
        )}
      </fieldset>
      {canEdit && (
        <div className="form-actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {t('incidents.saveReview')}
          </button>
          {save.isSuccess && <span role="status">{t('incidents.saved')}</span>}
        </div>
      )}
      {hasUnplacedProblem(save.error) && <ErrorNotice error={save.error} />}
    </form>
  );
}

export function IncidentReviewPage() {
  const { rich, t } = useT();
  const { id = '' } = useParams();
  const { canMutate } = useSession();
  const review = useQuery({
    queryKey: ['incidents', 'review', id],
    queryFn: async () => (await hub.call('incidents.review', { params: { id } })).data,
  });
  const [exportError, setExportError] = useState<unknown>(null);
  const exportMarkdown = async () => {
    try {
      const file = await hub.download('incidents.reviewMarkdown', { params: { id } });
      saveText(new TextDecoder().decode(file.bytes), file.filename ?? `${id}-review.md`);
      setExportError(null);
    } catch (error) {
      setExportError(error);
    }
  };
  return (
    <section className="page" aria-labelledby="review-title">
      <div className="page-header">
        <h1 id="review-title">{t('incidents.reviewTitle')}</h1>
        <Link to="/incidents?status=all">{t('incidents.all')}</Link>
        {review.isSuccess && (
          <button type="button" onClick={() => void exportMarkdown()}>
            {t('incidents.export')}
          </button>
        )}
      </div>
      {exportError !== null && <ErrorNotice error={exportError} />}
      {review.isPending && <Loading label={t('incidents.loadingReview')} />}
      {review.isError && <ErrorNotice error={review.error} retry={() => void review.refetch()} />}
      {review.isSuccess && (
        <>
          <p className="review-incident">
            <SeverityBadge severity={review.data.incident.severity} />{' '}
            {rich(review.data.incident.resolved_at ? 'incidents.openedResolved' : 'incidents.openedAt', {
              title: <span translate="no">{review.data.incident.title}</span>,
              status: t('incidents.statusValue', { status: review.data.incident.status }),
              opened: formatTime(review.data.incident.opened_at),
              resolved: formatTime(review.data.incident.resolved_at),
            })}
          </p>
          <ReviewForm key={review.data.incident.id} review={review.data} canEdit={canMutate} />
          <section aria-labelledby="timeline-title">
            <h2 id="timeline-title">{t('incidents.timeline')}</h2>
            {review.data.note && (
              <p className="muted" translate="no">
                {review.data.note}
              </p>
            )}
            <ol className="timeline" aria-label={t('incidents.timeline')}>
              {review.data.timeline.map((e, i) => (
                <li key={`${e.ts}-${e.ref_id ?? ''}-${String(i)}`} className={`timeline-${e.source}`}>
                  <time dateTime={e.ts}>{formatTime(e.ts)}</time>{' '}
                  <span className="muted">{t('incidents.source', { source: e.source })}</span>{' '}
                  <span translate="no">{e.text}</span>
                  {e.actor && (
                    <span className="muted">
                      {' '}
                      {rich('incidents.by', { actor: <span translate="no">{e.actor}</span> })}
                    </span>
                  )}
                </li>
              ))}
            </ol>
          </section>
        </>
      )}
    </section>
  );
}
