//! The paged read through the sqlx pool (PostgreSQL): a task streams the statement's
//! rows inside one REPEATABLE READ transaction and sends them in pages.

use super::{Pager, ROWS};
use crate::IndexError;
use crate::pages::{ListedRow, PAGES_AHEAD, PageBounds, PageFill, RowPages};
use crate::sql::Dialect;
use crate::sql::codec::{column, decode_flags, to_u32, to_u64};
use futures::TryStreamExt;
use sqlx::AnyPool;
use sqlx::any::AnyRow;
use tokio::sync::{mpsc, oneshot};

pub(crate) async fn pages(
    pool: &AnyPool,
    dialect: Dialect,
    project: &str,
    bounds: PageBounds,
) -> Result<RowPages, IndexError> {
    let (sender, receiver) = mpsc::channel(PAGES_AHEAD);
    let (revision_sender, revision) = oneshot::channel();
    let pool = pool.clone();
    let project = project.to_owned();
    let pager = Pager::new(PageFill::new(bounds), sender);
    tokio::spawn(async move {
        let outcome = stream(&pool, dialect, &project, revision_sender, pager).await;
        if let Err(error) = outcome {
            tracing::debug!(%error, "a paged listing ended early");
        }
    });
    let revision = revision
        .await
        .map_err(|_| IndexError::Backend("the listing task stopped".into()))??;
    Ok(RowPages::new(revision, receiver))
}

async fn stream(
    pool: &AnyPool,
    dialect: Dialect,
    project: &str,
    revision: oneshot::Sender<Result<u64, IndexError>>,
    mut pager: Pager,
) -> Result<(), IndexError> {
    let mut tx = match begin(pool, dialect, project).await {
        Ok((tx, value)) => {
            if revision.send(Ok(value)).is_err() {
                return Ok(());
            }
            tx
        }
        Err(error) => {
            let _ = revision.send(Err(error));
            return Ok(());
        }
    };
    let outcome = async {
        let mut rows = sqlx::query(ROWS).bind(project).fetch(&mut *tx);
        while let Some(row) = rows.try_next().await? {
            if !pager.push(listed(&row)?).await {
                return Ok(false);
            }
        }
        Ok::<_, IndexError>(true)
    }
    .await;
    match outcome {
        Ok(true) => {
            let committed = tx.commit().await.map_err(IndexError::from);
            pager.finish(committed).await;
        }
        Ok(false) => {} // the reader is gone; the transaction rolls back on drop
        Err(error) => pager.finish(Err(error)).await,
    }
    Ok(())
}

async fn begin(
    pool: &AnyPool,
    dialect: Dialect,
    project: &str,
) -> Result<(sqlx::Transaction<'static, sqlx::Any>, u64), IndexError> {
    let mut tx = pool.begin().await?;
    if dialect == Dialect::Postgres {
        sqlx::raw_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .execute(&mut *tx)
            .await?;
    }
    let revision: Option<i64> =
        sqlx::query_scalar("SELECT revision FROM index_projects WHERE project = $1")
            .bind(project)
            .fetch_optional(&mut *tx)
            .await?;
    Ok((tx, to_u64(revision.unwrap_or(0), "revision")?))
}

fn listed(row: &AnyRow) -> Result<ListedRow, IndexError> {
    Ok(ListedRow {
        source: column(row, "source")?,
        path: column(row, "path")?,
        content_hash: column(row, "content_hash")?,
        size: to_u64(column(row, "size")?, "size")?,
        modified: column(row, "modified")?,
        classification: column(row, "classification")?,
        payload_json: column(row, "payload")?,
        usable_manifest: column::<i64>(row, "usable_manifest")? != 0,
        privacy_owner: column(row, "privacy_owner")?,
        payload_version: to_u32(column(row, "payload_version")?, "payload_version")?,
        real_path: column(row, "real_path")?,
        content_flags: decode_flags(&column::<String>(row, "content_flags")?),
    })
}
