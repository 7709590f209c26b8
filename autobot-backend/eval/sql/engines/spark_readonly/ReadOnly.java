// The throwaway Spark server's second read-only layer (eval/sql/engines/spark_server.py compiles it at start).
//
// A check rule that runs after analysis on every statement of every session, so it sees what the statement
// resolved to whatever its spelling: unless the session was opened writable (spark.eval.writable=true, given
// when the session is opened, as the fixture builder does), it refuses every command but the catalog reads
// (SHOW, DESCRIBE, EXPLAIN, and USE, which pyhive sends on connecting) -- so INSERT, CREATE, DROP, ALTER, CACHE, ADD JAR, SET, LOAD DATA, INSERT OVERWRITE
// DIRECTORY and their kin -- a table read from a file or URL instead of the catalog (parquet.`/path`), and the
// reflective and file functions (reflect, java_method, input_file_name...). SET itself being refused, a
// statement cannot make its own session writable.
package eval.spark;

import java.util.List;
import java.util.Set;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.logical.Command;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import scala.Function1;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

public class ReadOnly extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
    static final String WRITABLE = "spark.eval.writable";
    static final Set<String> READ_COMMANDS = Set.of(
        "ShowTables", "ShowTablesCommand", "ShowTablesExtended", "ShowViews", "ShowViewsCommand", "ShowNamespaces",
        "ShowNamespacesCommand",
        "ShowColumns", "ShowColumnsCommand", "DescribeRelation", "DescribeTableCommand", "DescribeColumn",
        "DescribeColumnCommand", "DescribeNamespace", "DescribeDatabaseCommand", "ExplainCommand",
        "SetCatalogAndNamespace", "SetNamespaceCommand", "SetCatalogCommand");  // USE: every database reads only
    static final Set<String> OUTSIDE_FUNCTIONS = Set.of(
        "CallMethodViaReflection", "TryReflect", "InputFileName", "InputFileBlockStart", "InputFileBlockLength");

    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions) {
        extensions.injectCheckRule(new AbstractFunction1<SparkSession, Function1<LogicalPlan, BoxedUnit>>() {
            @Override
            public Function1<LogicalPlan, BoxedUnit> apply(SparkSession session) {
                return new AbstractFunction1<LogicalPlan, BoxedUnit>() {
                    @Override
                    public BoxedUnit apply(LogicalPlan plan) {
                        if (!"true".equals(session.conf().get(WRITABLE, "false"))) {
                            check(plan);
                        }
                        return BoxedUnit.UNIT;
                    }
                };
            }
        });
        return BoxedUnit.UNIT;
    }

    static void check(LogicalPlan plan) {
        String name = plan.getClass().getSimpleName();
        if (plan instanceof Command && !READ_COMMANDS.contains(name)) {
            refuse("the statement is a " + name + ", not a read");
        }
        if (name.contains("Insert") || name.contains("Write") || name.contains("Overwrite")) {
            refuse("the statement writes (" + name + ")");
        }
        if (plan instanceof LogicalRelation && ((LogicalRelation) plan).catalogTable().isEmpty()) {
            refuse("the statement reads a file or URL as a table");
        }
        for (Expression e : list(plan.expressions())) {
            checkExpression(e);
        }
        for (LogicalPlan child : list(plan.children())) {
            check(child);
        }
    }

    static void checkExpression(Expression e) {
        if (OUTSIDE_FUNCTIONS.contains(e.getClass().getSimpleName())) {
            refuse("the statement calls " + e.prettyName() + ", which reaches outside the database");
        }
        if (e instanceof SubqueryExpression) {
            check(((SubqueryExpression) e).plan());
        }
        for (Expression child : list(e.children())) {
            checkExpression(child);
        }
    }

    static <T> List<T> list(scala.collection.Seq<T> seq) {
        return CollectionConverters.asJava(seq);
    }

    static void refuse(String why) {
        throw new SecurityException("EVAL_READ_ONLY: " + why + "; this server's sessions are read-only");
    }
}
